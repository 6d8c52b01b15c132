import type { Knex } from 'knex';

/** Why an approval request failed (status failed): what it was given could not be stored. */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('approvals', (t) => {
    t.jsonb('failure');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('approvals', (t) => {
    t.dropColumn('failure');
  });
}

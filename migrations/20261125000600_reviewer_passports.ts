import type { Knex } from 'knex';

/**
 * Reviewers are people: a reviewer links to the Passport that signs in as them, so that only that Passport
 * resolves the routings assigned to the reviewer.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('reviewers', (t) => {
    t.text('passport_id').references('passport_id').inTable('passports');
    t.index(['passport_id']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('reviewers', (t) => t.dropColumn('passport_id'));
}

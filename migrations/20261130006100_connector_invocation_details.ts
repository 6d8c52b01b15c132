import type { Knex } from 'knex';

/**
 * What a recorded invocation of an installation names (services/connectors/usage.ts): the operation called
 * and, for a failed one, its error code. The usage statistics and the catalog's invocation_count_30d are
 * computed from these rows.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    alter table connector_invocations
      add column operation text check (char_length(operation) <= 200),
      add column error_code text check (char_length(error_code) <= 200)`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('alter table connector_invocations drop column operation, drop column error_code');
}

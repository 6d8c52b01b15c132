import type { Knex } from 'knex';

/** The tables every request's authentication reads (db/credentials.ts CREDENTIAL_TABLES, as they were here). */
const CREDENTIAL_TABLES = ['token_subjects', 'service_accounts', 'agents', 'api_tokens'];

/**
 * Each change to a credential table notifies credentials_changed with the table's name, delivered at commit:
 * every API instance drops what it holds of that table (lib/notified-cache.ts). One notification per
 * statement, and Postgres folds identical ones within a transaction.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    create function notify_credentials_changed() returns trigger language plpgsql as $$
    begin
      perform pg_notify('credentials_changed', tg_table_name);
      return null;
    end $$
  `);
  for (const table of CREDENTIAL_TABLES) {
    await knex.raw(`
      create trigger ${table}_changed after insert or update or delete or truncate on ${table}
        for each statement execute function notify_credentials_changed()
    `);
  }
}

export async function down(knex: Knex): Promise<void> {
  for (const table of CREDENTIAL_TABLES) await knex.raw(`drop trigger ${table}_changed on ${table}`);
  await knex.raw('drop function notify_credentials_changed()');
}

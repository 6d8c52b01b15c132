import type { Knex } from 'knex';

/**
 * Each change to covers notifies credentials_changed with the table's name, at commit, as the credential tables
 * do (20261201005100): every API instance drops the covers it holds for opening approvals (lib/notified-cache.ts).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    create trigger covers_changed after insert or update or delete or truncate on covers
      for each statement execute function notify_credentials_changed()
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('drop trigger covers_changed on covers');
}

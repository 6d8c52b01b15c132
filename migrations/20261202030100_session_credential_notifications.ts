import type { Knex } from 'knex';

/** The tables a signed-in person's every request reads: the key or passkey the session is bound to, and the role. */
const SESSION_TABLES = ['passport_keys', 'webauthn_credentials', 'employees'];

/**
 * Each change to them notifies credentials_changed with the table's name, at commit, as the credential tables
 * do (20261201005100): every API instance drops what it holds of that table (lib/notified-cache.ts).
 */
export async function up(knex: Knex): Promise<void> {
  for (const table of SESSION_TABLES) {
    await knex.raw(`
      create trigger ${table}_changed after insert or update or delete or truncate on ${table}
        for each statement execute function notify_credentials_changed()
    `);
  }
}

export async function down(knex: Knex): Promise<void> {
  for (const table of SESSION_TABLES) await knex.raw(`drop trigger ${table}_changed on ${table}`);
}

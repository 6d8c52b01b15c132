import type { Knex } from 'knex';

/**
 * An enrollment may be for a reviewer: the Passport its passkey mints is linked to that reviewer in the same
 * transaction, so that the routings escalated to the reviewer reach the person who enrolled (npm start's Ada).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('webauthn_challenges', (t) => t.text('reviewer_did'));
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('webauthn_challenges', (t) => t.dropColumn('reviewer_did'));
}

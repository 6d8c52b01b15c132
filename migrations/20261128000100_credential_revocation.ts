import type { Knex } from 'knex';

/** Revoking a passkey or device key revokes the live delegations it signed: found by the credential, not by scanning. */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(
    'create index delegations_live_by_credential on delegations (credential_id, credential_type) where revoked_at is null',
  );
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('drop index delegations_live_by_credential');
}

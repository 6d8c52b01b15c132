import type { Knex } from 'knex';

/** Whether the passkey or device key a session was signed in with is still active for that Passport. */
export async function sessionCredentialIsActive(
  db: Knex,
  credential: { type: 'passkey' | 'device_key'; id: string; passport_id: string },
): Promise<boolean> {
  const row: { status: string } | undefined =
    credential.type === 'passkey'
      ? await db('webauthn_credentials').where({ credential_id: credential.id, passport_id: credential.passport_id }).first('status')
      : await db('passport_keys').where({ kid: credential.id, passport_id: credential.passport_id }).first('status');
  return row?.status === 'active';
}

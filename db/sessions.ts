import type { Knex } from 'knex';

/**
 * Whether the passkey or device key a session was signed in with is still active for that Passport. With
 * forShare (inside a transaction) the row stays locked until commit, so a revocation of it cannot pass unseen.
 */
export async function sessionCredentialIsActive(
  db: Knex,
  credential: { type: 'passkey' | 'device_key'; id: string; passport_id: string },
  options: { forShare?: boolean } = {},
): Promise<boolean> {
  const query =
    credential.type === 'passkey'
      ? db('webauthn_credentials').where({ credential_id: credential.id, passport_id: credential.passport_id })
      : db('passport_keys').where({ kid: credential.id, passport_id: credential.passport_id });
  if (options.forShare) query.forShare();
  const row: { status: string } | undefined = await query.first('status');
  return row?.status === 'active';
}

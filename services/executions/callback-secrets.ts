import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import { liveCallbackSecrets, rotateCallbackSecret } from '../../db/callback-secrets';
import { newSigningSecret } from '../outbound/signature';

/**
 * A new secret that signs the callbacks of the caller's executions, shown once. The previous ones keep
 * signing beside it (one v1 each) for the grace period, so receivers can switch without missing one.
 */
export async function rotateCallbackSigningSecret(db: Knex, principalId: string, graceSeconds: number) {
  const secret = newSigningSecret();
  const secret_id = `cbs_${randomUUID()}`;
  const rotated = await rotateCallbackSecret(db, { secret_id, principal: principalId, secret, graceSeconds });
  return { id: secret_id, secret, created_at: rotated.created_at.toISOString(), previous_secrets_expire_at: rotated.previous_expire_at?.toISOString() ?? null };
}

/** The caller's live secrets, without the secrets themselves. */
export async function listCallbackSigningSecrets(db: Knex, principalId: string) {
  const rows = await liveCallbackSecrets(db, principalId);
  return rows.map((row) => ({ id: row.secret_id, hint: `${row.secret.slice(0, 10)}…`, created_at: row.created_at.toISOString(), expires_at: row.expires_at?.toISOString() ?? null }));
}

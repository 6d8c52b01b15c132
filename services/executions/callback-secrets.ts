import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import { liveCallbackSecrets, rotateCallbackSecret, type CallbackSecretRow } from '../../db/callback-secrets';
import { newSigningSecret } from '../../lib/outbound/signature';
import { createSecretBox, type SecretKeys } from '../../lib/secret-box';

/** Binds a sealed secret to its owner and id, so a sealed value copied to another row does not open. */
function secretContext(principalId: string, secretId: string): string {
  return `callback_secret:${principalId}:${secretId}`;
}

/**
 * A new secret that signs the callbacks of the caller's executions, shown once and stored sealed. The
 * previous ones keep signing beside it (one v1 each) for the grace period, so receivers can switch without
 * missing one.
 */
export async function rotateCallbackSigningSecret(
  db: Knex,
  { id: principalId, organization_id }: { id: string; organization_id: string },
  settings: { graceSeconds: number; secretKeys: SecretKeys },
) {
  const box = createSecretBox(settings.secretKeys);
  if (!box.canSeal) return { ok: false as const, code: 'secrets_unavailable' as const };
  const secret = newSigningSecret();
  const secret_id = `cbs_${randomUUID()}`;
  const rotated = await rotateCallbackSecret(db, {
    secret_id,
    principal: principalId,
    organization_id,
    sealed_secret: box.seal(secret, secretContext(principalId, secret_id)),
    secret_hint: `${secret.slice(0, 10)}…`,
    graceSeconds: settings.graceSeconds,
  });
  return {
    ok: true as const,
    secret: {
      id: secret_id,
      secret,
      created_at: rotated.created_at.toISOString(),
      previous_secrets_expire_at: rotated.previous_expire_at?.toISOString() ?? null,
    },
  };
}

/** The caller's live secrets, without the secrets themselves. */
export async function listCallbackSigningSecrets(db: Knex, organizationId: string, principalId: string) {
  const rows = await liveCallbackSecrets(db, organizationId, principalId);
  return rows.map((row) => ({
    id: row.secret_id,
    hint: row.secret_hint,
    created_at: row.created_at.toISOString(),
    expires_at: row.expires_at?.toISOString() ?? null,
  }));
}

/** The secrets that sign a callback now, opened; a key no longer configured throws SecretsUnavailableError. */
export function openCallbackSecrets(rows: readonly CallbackSecretRow[], secretKeys: SecretKeys): string[] {
  const box = createSecretBox(secretKeys);
  return rows.map((row) => box.open(row.sealed_secret, secretContext(row.principal, row.secret_id)));
}

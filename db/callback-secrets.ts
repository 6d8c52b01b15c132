import type { Knex } from 'knex';

export interface CallbackSecretRow {
  secret_id: string;
  principal: string;
  /** Sealed with the deployment's secrets key; opened only to sign. */
  sealed_secret: string;
  /** The secret's first characters, so its owner can tell secrets apart. */
  secret_hint: string;
  created_at: Date;
  expires_at: Date | null;
}

/**
 * Stores a new secret and gives every older live one of the principal `graceSeconds` to live, so receivers
 * can move to the new secret while callbacks carry a signature for each (one transaction).
 */
export async function rotateCallbackSecret(
  db: Knex,
  input: {
    secret_id: string;
    principal: string;
    organization_id: string;
    sealed_secret: string;
    secret_hint: string;
    graceSeconds: number;
  },
): Promise<{ previous_expire_at: Date | null; created_at: Date }> {
  return db.transaction(async (trx) => {
    // One rotation at a time per principal, also for the first one, when there is no row to lock yet.
    await trx.raw('select pg_advisory_xact_lock(hashtext(?))', [
      `callback-secret:${input.organization_id}:${input.principal}`,
    ]);
    const [expired] = await trx('callback_signing_secrets')
      .where({ principal: input.principal, organization_id: input.organization_id })
      .where((live) => live.whereNull('expires_at').orWhere('expires_at', '>', trx.fn.now()))
      .update({
        expires_at: trx.raw(`least(coalesce(expires_at, 'infinity'), now() + make_interval(secs => ?))`, [
          input.graceSeconds,
        ]),
      })
      .returning<{ expires_at: Date }[]>('expires_at');
    const [created] = await trx('callback_signing_secrets')
      .insert({
        secret_id: input.secret_id,
        principal: input.principal,
        organization_id: input.organization_id,
        sealed_secret: input.sealed_secret,
        secret_hint: input.secret_hint,
      })
      .returning<{ created_at: Date }[]>('created_at');
    return { previous_expire_at: expired?.expires_at ?? null, created_at: created!.created_at };
  });
}

/** The principal's secrets in its organization that still sign, newest first. */
export async function liveCallbackSecrets(
  db: Knex,
  organizationId: string,
  principal: string,
): Promise<CallbackSecretRow[]> {
  return db<CallbackSecretRow>('callback_signing_secrets')
    .where('principal', principal)
    .andWhere('organization_id', organizationId)
    .where((live) => live.whereNull('expires_at').orWhere('expires_at', '>', db.fn.now()))
    .orderBy('created_at', 'desc');
}

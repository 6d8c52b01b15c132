import type { Knex } from 'knex';

export interface StoredResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

export type ClaimResult =
  | { state: 'claimed' }
  | { state: 'mismatch' }
  | { state: 'in_flight'; retryAfterSeconds: number }
  | { state: 'completed'; response: StoredResponse };

interface KeyRow {
  principal: string;
  idempotency_key: string;
  fingerprint: string;
  state: 'in_flight' | 'completed';
  locked_until: Date | null;
  response_status: number | null;
  response_headers: Record<string, string> | null;
  response_body: string | null;
}

/**
 * Claims a key for one request. The insert is the lock: of concurrent duplicates exactly one claims it.
 * An expired key, or an in-flight claim whose lock lapsed (its process died), can be claimed again.
 */
export async function claimIdempotencyKey(
  db: Knex,
  key: { principal: string; key: string; fingerprint: string; lockSeconds: number; ttlSeconds: number },
): Promise<ClaimResult> {
  const claimed = await db.raw<{ rows: unknown[] }>(
    `insert into idempotency_keys (principal, idempotency_key, fingerprint, state, locked_until, expires_at)
     values (?, ?, ?, 'in_flight', now() + make_interval(secs => ?), now() + make_interval(secs => ?))
     on conflict (principal, idempotency_key) do update
       set fingerprint = excluded.fingerprint, state = 'in_flight', locked_until = excluded.locked_until,
           expires_at = excluded.expires_at, created_at = now(),
           response_status = null, response_headers = null, response_body = null
       where idempotency_keys.expires_at < now()
          or (idempotency_keys.state = 'in_flight' and idempotency_keys.locked_until < now()
              and idempotency_keys.fingerprint = excluded.fingerprint)
     returning 1`,
    [key.principal, key.key, key.fingerprint, key.lockSeconds, key.ttlSeconds],
  );
  if (claimed.rows.length > 0) return { state: 'claimed' };

  const row = await db<KeyRow>('idempotency_keys')
    .where({ principal: key.principal, idempotency_key: key.key })
    .first();
  if (!row) return claimIdempotencyKey(db, key);
  if (row.fingerprint !== key.fingerprint) return { state: 'mismatch' };
  if (row.state === 'in_flight') {
    const remaining = row.locked_until ? Math.ceil((row.locked_until.getTime() - Date.now()) / 1000) : 1;
    return { state: 'in_flight', retryAfterSeconds: Math.max(1, Math.min(remaining, 5)) };
  }
  return {
    state: 'completed',
    response: {
      status: row.response_status ?? 200,
      headers: row.response_headers ?? {},
      body: row.response_body ?? '',
    },
  };
}

export async function completeIdempotencyKey(
  db: Knex,
  key: { principal: string; key: string },
  response: StoredResponse,
): Promise<void> {
  await db('idempotency_keys')
    .where({ principal: key.principal, idempotency_key: key.key })
    .update({
      state: 'completed',
      locked_until: null,
      response_status: response.status,
      response_headers: JSON.stringify(response.headers),
      response_body: response.body,
    });
}

export async function releaseIdempotencyKey(db: Knex, key: { principal: string; key: string }): Promise<void> {
  await db('idempotency_keys')
    .where({ principal: key.principal, idempotency_key: key.key, state: 'in_flight' })
    .delete();
}

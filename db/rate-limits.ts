import type { Knex } from 'knex';

/** Counts one request in the principal's current window and returns the count so far, atomically. */
export async function countRequest(db: Knex, key: { principal: string; category: string; windowStart: Date }): Promise<number> {
  const result = await db.raw<{ rows: { count: number }[] }>(
    `insert into rate_limit_counters (principal, category, window_start, count) values (?, ?, ?, 1)
     on conflict (principal, category, window_start) do update set count = rate_limit_counters.count + 1
     returning count`,
    [key.principal, key.category, key.windowStart],
  );
  return result.rows[0]!.count;
}

export async function deleteRateLimitWindowsBefore(db: Knex, before: Date): Promise<number> {
  return db('rate_limit_counters').where('window_start', '<', before).delete();
}

import type { Knex } from 'knex';
import { preparedQuery } from './prepared';

const COUNT_REQUEST = `insert into rate_limit_counters (principal, category, window_start, count)
     select ?, ?, ?, 1 from (select set_config('synchronous_commit', 'off', true)) as this_transaction_only
     on conflict (principal, category, window_start) do update set count = rate_limit_counters.count + 1
     returning count`;

/**
 * Counts one request in the principal's current window and returns the count so far, atomically. The commit
 * does not wait for the WAL flush (synchronous_commit off for this transaction only): a database crash may
 * forget the last few counts, which a rate limit can afford, and every request saves a disk flush. Every
 * authenticated request makes it, so it is a prepared statement (db/prepared.ts).
 */
export async function countRequest(
  db: Knex,
  key: { principal: string; category: string; windowStart: Date },
): Promise<number> {
  const [row] = await preparedQuery<{ count: number }>(db, COUNT_REQUEST, [
    key.principal,
    key.category,
    key.windowStart,
  ]);
  return row!.count;
}

export async function deleteRateLimitWindowsBefore(db: Knex, before: Date): Promise<number> {
  return db('rate_limit_counters').where('window_start', '<', before).delete();
}

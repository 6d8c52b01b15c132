import type { Knex } from 'knex';
import { createBackgroundQueue } from '../../lib/background';

/**
 * How long an after-answer delete waits for others to join it. The rows it deletes are a safety net the sweep
 * reads only after seconds (STALE_START_MS), so a short wait costs nothing and keeps the write off the answer's path.
 */
export const AFTER_ANSWER_LINGER_MS = 20;

/** Writes a batch of a process's after-answer deletes database by database (a test process runs several). */
export async function byDatabase<T extends { db: Knex }>(
  batch: readonly T[],
  write: (db: Knex, items: T[]) => Promise<void>,
): Promise<void> {
  const groups = new Map<Knex, T[]>();
  for (const item of batch) {
    const group = groups.get(item.db);
    if (group) group.push(item);
    else groups.set(item.db, [item]);
  }
  // A group whose write fails is dropped, as a failed batch is; the others are written all the same.
  await Promise.allSettled([...groups].map(([db, items]) => write(db, items)));
}

/**
 * Calls on Temporal the after-answer queue makes at once. A queue behind a burst (the hot-paths bench at c=32)
 * otherwise leaves its rows to the sweep, whose 16 calls (SWEEP_CONCURRENCY) come on top of the queue's: twice 16
 * in all, as these 32 are, but then made seconds late.
 */
export const AFTER_ANSWER_CONCURRENCY = 32;

/**
 * What a process does after answering a request whose record has committed (workflow starts, signals): a few
 * at a time, so a burst of answers does not swamp Temporal, each retried after 0.5, 2 and 5 s. What still
 * fails, or a process gone, leaves its row to the dispatcher's sweep. Newest first: behind a burst, a start
 * waits for the queue only when the queue has a fresher one to make, and the oldest, past the handover, are
 * the sweep's, instead of every start made just before its handover.
 */
export const afterAnswer = createBackgroundQueue({
  concurrency: AFTER_ANSWER_CONCURRENCY,
  retryDelaysMs: [500, 2000, 5000],
  order: 'newest-first',
});

/** How long before the sweep's grace for a row ends the queue leaves it to the sweep: a call and a delete's time. */
export const HANDOVER_MARGIN_MS = 1000;

/**
 * Queues the start or signal of a committed row, unless the dispatcher's sweep is about to own it: a task (or a
 * retry) not begun `HANDOVER_MARGIN_MS` before the row's grace (`graceMs`) ends is dropped and its row left to the
 * sweep, which claims rows only past their grace. So each is made once, by one of them (under a burst the queue
 * fell seconds behind, and both made the same starts, when Temporal was the bottleneck); only a call begun just
 * before its drop time and outlasting the margin is repeated, a no-op at Temporal. A dropped task keeps its row.
 */
export function pushUntilSwept(graceMs: number, task: () => Promise<void>): void {
  const leftToSweepAt = Date.now() + graceMs - HANDOVER_MARGIN_MS;
  afterAnswer.push(async () => {
    if (Date.now() < leftToSweepAt) await task();
  });
}

/**
 * Starts or signals a pass of the dispatcher's sweep makes at once. One at a time, a pass behind a burst (hundreds
 * of rows, each call slowed by a loaded Temporal) held its transaction for minutes, into the pass's own timeout.
 */
export const SWEEP_CONCURRENCY = 16;

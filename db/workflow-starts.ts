import type { SearchAttributePair } from '@temporalio/common';
import type { Knex } from 'knex';
import { preparedQuery } from './prepared';

/** A condition that is always true and turns off synchronous_commit for the statement's own transaction. */
const WITHOUT_WAITING_FOR_THE_FLUSH = "set_config('synchronous_commit', 'off', true) is not null";

/** A workflow start committed with the record it carries on (workflow id = the resource id). */
export interface PendingStart {
  workflow_id: string;
  workflow_type: string;
  task_queue: string;
  /** The workflow's arguments. */
  args: unknown[];
  /** Typed search attributes: their keys are plain {name, type} objects, so they keep as JSON. */
  search_attributes: SearchAttributePair[];
}

/**
 * The pending start as the insert of a data-modifying CTE, made only when the statement's CTE `source` yields
 * a row (the record it carries on was written); `args` is the SQL of its arguments, with one placeholder for
 * their JSON. A second one for the same workflow changes nothing.
 */
export function pendingStartInsert(
  start: PendingStart,
  source: string,
  args = '?::jsonb',
): { sql: string; bindings: unknown[] } {
  return {
    sql: `insert into workflow_starts (workflow_id, workflow_type, task_queue, args, search_attributes)
       select ?, ?, ?, ${args}, ?::jsonb from ${source}
       on conflict (workflow_id) do nothing`,
    bindings: [
      start.workflow_id,
      start.workflow_type,
      start.task_queue,
      JSON.stringify(start.args),
      JSON.stringify(start.search_attributes),
    ],
  };
}

// The deletes below skip rows a sweep holds: the sweep deletes what it delivers, and a delete that waited for its
// locks would hold a pool connection for the whole of the sweep's pass.
const DELETE_MADE_STARTS = `delete from workflow_starts
   where workflow_id in (select workflow_id from workflow_starts where workflow_id = any(?::text[]) for update skip locked)
     and ${WITHOUT_WAITING_FOR_THE_FLUSH}`;

/**
 * Once their starts are made, pending starts are only a safety net: the delete skips rows a sweep holds and
 * does not wait for the WAL flush (synchronous_commit off for this transaction only), since a delete a crash
 * forgets makes the sweep repeat a start, which starts nothing.
 */
export async function deleteMadeStarts(db: Knex, workflowIds: readonly string[]): Promise<void> {
  if (workflowIds.length === 0) return;
  // One prepared statement whatever the batch's size (an array, not a list of placeholders): a quiet API makes
  // one of these after every answer.
  await preparedQuery(db, DELETE_MADE_STARTS, [workflowIds]);
}

export async function findPendingStart(db: Knex, workflowId: string): Promise<PendingStart | undefined> {
  return db<PendingStart>('workflow_starts')
    .select('workflow_id', 'workflow_type', 'task_queue', 'args', 'search_attributes')
    .where({ workflow_id: workflowId })
    .first();
}

/** A row the sweep claimed, with how long ago it was committed (by the database's clock). */
export type Swept<T> = T & { waited_ms: number };

const WAITED_MS = 'extract(epoch from now() - created_at)::float8 * 1000 as waited_ms';

/** Starts committed at least `olderThanMs` ago (or requeued to then) that nobody is known to have made. */
export async function claimStaleStarts(trx: Knex, olderThanMs: number, limit: number): Promise<Swept<PendingStart>[]> {
  return inSweepOrder(trx, 'workflow_starts', olderThanMs, limit).select(
    'workflow_id',
    'workflow_type',
    'task_queue',
    'args',
    'search_attributes',
    trx.raw(WAITED_MS),
  );
}

export async function deletePendingStarts(trx: Knex, workflowIds: string[]): Promise<void> {
  if (workflowIds.length > 0) await trx('workflow_starts').whereIn('workflow_id', workflowIds).delete();
}

/** A signal committed with the record it tells its workflow about. */
export interface PendingSignal {
  workflow_id: string;
  signal_name: string;
  /** The signal's arguments. */
  args: unknown[];
}

const DELETE_DELIVERED_SIGNALS = `delete from workflow_signals
   where (workflow_id, signal_name) in (
           select workflow_id, signal_name from workflow_signals
            where (workflow_id, signal_name) in (select * from unnest(?::text[], ?::text[]))
            for update skip locked)
     and ${WITHOUT_WAITING_FOR_THE_FLUSH}`;

/**
 * Delivered signals' delete, likewise: a forgotten one is delivered again, which its workflow ignores. One
 * prepared statement whatever the batch's size (the keys as two arrays), as for made starts: a quiet API makes
 * one after every answer.
 */
export async function deleteDeliveredSignals(
  db: Knex,
  signals: ReadonlyArray<Pick<PendingSignal, 'workflow_id' | 'signal_name'>>,
): Promise<void> {
  if (signals.length === 0) return;
  await preparedQuery(db, DELETE_DELIVERED_SIGNALS, [
    signals.map((signal) => signal.workflow_id),
    signals.map((signal) => signal.signal_name),
  ]);
}

/** Signals committed at least `olderThanMs` ago (or requeued to then) and still undelivered. */
export async function claimStaleSignals(
  trx: Knex,
  olderThanMs: number,
  limit: number,
): Promise<Swept<PendingSignal>[]> {
  return inSweepOrder(trx, 'workflow_signals', olderThanMs, limit).select(
    'workflow_id',
    'signal_name',
    'args',
    trx.raw(WAITED_MS),
  );
}

/** Where a row stands in the sweep's order: when it was committed, or, once refused, when it was requeued to. */
const SWEEP_ORDER = 'coalesce(requeued_at, created_at)';

/**
 * Rows whose turn in the sweep came at least `olderThanMs` ago, oldest first, locked for the caller's transaction
 * (skipping those another worker holds); by the index on the sweep's order.
 */
function inSweepOrder(
  trx: Knex,
  table: 'workflow_starts' | 'workflow_signals',
  olderThanMs: number,
  limit: number,
): Knex.QueryBuilder {
  return trx(table)
    .whereRaw(`${SWEEP_ORDER} < now() - make_interval(secs => ?)`, [olderThanMs / 1000])
    .orderByRaw(SWEEP_ORDER)
    .limit(limit)
    .forUpdate()
    .skipLocked();
}

/**
 * A start or signal Temporal refused as it stands steps aside: it is requeued as far after now as it is old (at
 * most an hour), so each refusal about doubles its wait and the rows behind it take its place in the next batches.
 */
const REQUEUED_AT = "now() + least(now() - created_at, interval '1 hour')";

export async function requeueRefusedStarts(trx: Knex, workflowIds: readonly string[]): Promise<void> {
  if (workflowIds.length === 0) return;
  await trx('workflow_starts')
    .whereIn('workflow_id', workflowIds)
    .update({ requeued_at: trx.raw(REQUEUED_AT) });
}

export async function requeueRefusedSignals(
  trx: Knex,
  signals: ReadonlyArray<Pick<PendingSignal, 'workflow_id' | 'signal_name'>>,
): Promise<void> {
  if (signals.length === 0) return;
  await trx('workflow_signals')
    .whereIn(
      ['workflow_id', 'signal_name'],
      signals.map((signal) => [signal.workflow_id, signal.signal_name]),
    )
    .update({ requeued_at: trx.raw(REQUEUED_AT) });
}

/** Records a start in the caller's transaction (the record it carries on is written beside it); a second one changes nothing. */
export async function insertPendingStart(db: Knex, start: PendingStart): Promise<void> {
  await db('workflow_starts')
    .insert({
      workflow_id: start.workflow_id,
      workflow_type: start.workflow_type,
      task_queue: start.task_queue,
      args: JSON.stringify(start.args),
      search_attributes: JSON.stringify(start.search_attributes),
    })
    .onConflict('workflow_id')
    .ignore();
}

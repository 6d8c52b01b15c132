import type { SearchAttributePair } from '@temporalio/common';
import type { Knex } from 'knex';

/** A condition that is always true and turns off synchronous_commit for the statement's own transaction. */
const WITHOUT_WAITING_FOR_THE_FLUSH = "set_config('synchronous_commit', 'off', true) is not null";

/**
 * The row, unless a sweep holds it: the sweep deletes what it delivers, and a delete that waited for its
 * lock would hold a pool connection for the whole of the sweep's pass.
 */
function unlockedRow(db: Knex, table: 'workflow_starts' | 'workflow_signals', key: Record<string, string>): Knex.QueryBuilder {
  return db(table).select('workflow_id').where(key).forUpdate().skipLocked();
}

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

/** Records the start in the caller's transaction, with the record it belongs to; a second one for the same workflow changes nothing. */
export async function insertPendingStart(trx: Knex, start: PendingStart): Promise<void> {
  await trx('workflow_starts')
    .insert({ ...start, args: JSON.stringify(start.args), search_attributes: JSON.stringify(start.search_attributes) })
    .onConflict('workflow_id')
    .ignore();
}

/**
 * Once its start is made, a pending start is only a safety net: its delete does not wait for the WAL flush
 * (synchronous_commit off for this transaction only), since a delete a crash forgets makes the sweep repeat a
 * start, which starts nothing.
 */
export async function deletePendingStart(db: Knex, workflowId: string): Promise<void> {
  await db('workflow_starts')
    .whereIn('workflow_id', unlockedRow(db, 'workflow_starts', { workflow_id: workflowId }))
    .whereRaw(WITHOUT_WAITING_FOR_THE_FLUSH)
    .delete();
}

export async function findPendingStart(db: Knex, workflowId: string): Promise<PendingStart | undefined> {
  return db<PendingStart>('workflow_starts').select('workflow_id', 'workflow_type', 'task_queue', 'args', 'search_attributes').where({ workflow_id: workflowId }).first();
}

/**
 * Starts committed at least `olderThanMs` ago that nobody is known to have made, oldest first, locked for
 * the caller's transaction (skipping those another worker holds).
 */
export async function claimStaleStarts(trx: Knex, olderThanMs: number, limit: number): Promise<PendingStart[]> {
  return trx<PendingStart>('workflow_starts')
    .select('workflow_id', 'workflow_type', 'task_queue', 'args', 'search_attributes')
    .where('created_at', '<', trx.raw(`now() - make_interval(secs => ?)`, [olderThanMs / 1000]))
    .orderBy('created_at')
    .limit(limit)
    .forUpdate()
    .skipLocked();
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

/** A delivered signal's delete, likewise without waiting for the flush: a forgotten one is delivered again, which its workflow ignores. */
export async function deletePendingSignal(db: Knex, signal: Pick<PendingSignal, 'workflow_id' | 'signal_name'>): Promise<void> {
  const key = { workflow_id: signal.workflow_id, signal_name: signal.signal_name };
  await db('workflow_signals').where(key).whereIn('workflow_id', unlockedRow(db, 'workflow_signals', key)).whereRaw(WITHOUT_WAITING_FOR_THE_FLUSH).delete();
}

/** Signals committed at least `olderThanMs` ago and still undelivered, oldest first, locked for the caller's transaction. */
export async function claimStaleSignals(trx: Knex, olderThanMs: number, limit: number): Promise<PendingSignal[]> {
  return trx<PendingSignal>('workflow_signals')
    .select('workflow_id', 'signal_name', 'args')
    .where('created_at', '<', trx.raw(`now() - make_interval(secs => ?)`, [olderThanMs / 1000]))
    .orderBy('created_at')
    .limit(limit)
    .forUpdate()
    .skipLocked();
}

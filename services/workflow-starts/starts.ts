import type { Client } from '@temporalio/client';
import { WorkflowExecutionAlreadyStartedError } from '@temporalio/common';
import type { Knex } from 'knex';
import {
  claimStaleStarts,
  deleteMadeStarts,
  deletePendingStarts,
  findPendingStart,
  type PendingStart,
} from '../../db/workflow-starts';
import { createBatchQueue } from '../../lib/background';
import { AFTER_ANSWER_LINGER_MS, byDatabase } from './batches';

export type { PendingStart } from '../../db/workflow-starts';

/**
 * A plain start of a workflow whose record is already committed (workflow id = resource id). A workflow of
 * that id that runs, or has run, is that same record's: conflict policy USE_EXISTING and reuse policy
 * REJECT_DUPLICATE make every repeat of the start a no-op, so a retry, the dispatcher and the first call
 * may all try it.
 */
export async function startWorkflow(temporal: Client, start: PendingStart): Promise<void> {
  try {
    await temporal.workflow.start(start.workflow_type, {
      workflowId: start.workflow_id,
      taskQueue: start.task_queue,
      args: start.args,
      workflowIdConflictPolicy: 'USE_EXISTING',
      workflowIdReusePolicy: 'REJECT_DUPLICATE',
      typedSearchAttributes: start.search_attributes,
    });
  } catch (error) {
    if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
  }
}

/** Made starts whose pending rows are to go, per process: under load, many requests' deletes are one statement. */
const madeStarts = createBatchQueue<{ db: Knex; workflowId: string }>({
  maxBatch: 500,
  lingerMs: AFTER_ANSWER_LINGER_MS,
  write: (batch) =>
    byDatabase(batch, (db, made) =>
      deleteMadeStarts(
        db,
        made.map((start) => start.workflowId),
      ),
    ),
});

/**
 * The request path's start after its commit. Once Temporal has it, the pending row is only a safety net: it
 * goes after the caller is answered, and should that delete fail, the sweep's start of it repeats nothing.
 */
export async function startCommitted(deps: { db: Knex; temporal: Client }, start: PendingStart): Promise<void> {
  await startWorkflow(deps.temporal, start);
  madeStarts.push({ db: deps.db, workflowId: start.workflow_id });
}

/** For a stopping process: waits (at most `timeoutMs`) for the deletes of made starts under way, before its pool closes. */
export function madeStartsForgotten(timeoutMs: number): Promise<void> {
  return madeStarts.settled(timeoutMs);
}

/** A retry of a request whose record exists: starts its workflow if the first call committed but never started it. */
export async function startIfPending(deps: { db: Knex; temporal: Client }, workflowId: string): Promise<void> {
  const pending = await findPendingStart(deps.db, workflowId);
  if (pending) await startCommitted(deps, pending);
}

/** How long a committed start may wait for its own request before the dispatcher makes it. */
export const STALE_START_MS = 5000;

/**
 * The dispatcher's sweep: starts what a crash between a commit and its start left behind, in one
 * transaction (a crash before its commit leaves the rows for the next sweep, whose starts repeat nothing).
 */
export async function startStaleStarts(deps: { db: Knex; temporal: Client }, limit: number): Promise<number> {
  return deps.db.transaction(async (trx) => {
    const stale = await claimStaleStarts(trx, STALE_START_MS, limit);
    for (const start of stale) await startWorkflow(deps.temporal, start);
    await deletePendingStarts(
      trx,
      stale.map((start) => start.workflow_id),
    );
    return stale.length;
  });
}

import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import { WorkflowExecutionAlreadyStartedError } from '@temporalio/common';
import type { Knex } from 'knex';
import { DISPATCH_PASS_TIMEOUT_MS } from '../../contracts/dispatch-outbox';
import { allowIdleInTransaction } from '../../db/connection';
import {
  claimStaleStarts,
  deleteMadeStarts,
  deletePendingStarts,
  findPendingStart,
  requeueRefusedStarts,
  type PendingStart,
} from '../../db/workflow-starts';
import { createBatchQueue } from '../../lib/background';
import { forEachConcurrently } from '../../lib/concurrency';
import { dependencyFailureOf } from '../../lib/dependency-failure';
import { AFTER_ANSWER_LINGER_MS, byDatabase, pushUntilSwept, SWEEP_CONCURRENCY } from './batches';

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
 * A start whose record has committed. Once Temporal has it, the pending row is only a safety net: it goes in a
 * later batch, and should that delete fail, the sweep's start of it repeats nothing.
 */
export async function startCommitted(deps: { db: Knex; temporal: Client }, start: PendingStart): Promise<void> {
  await startWorkflow(deps.temporal, start);
  madeStarts.push({ db: deps.db, workflowId: start.workflow_id });
}

/**
 * The request path's start: made behind the answer, which the caller has at commit (docs/architecture.md, "Answered
 * at commit"). A start that keeps failing, one that waited in the queue until the sweep's grace nearly ended, or a
 * process gone, leaves the row to the dispatcher's sweep.
 */
export function startAfterCommit(deps: { db: Knex; temporal: Client }, start: PendingStart): void {
  pushUntilSwept(STALE_START_MS, () => startCommitted(deps, start));
}

/** For a stopping process: waits (at most `timeoutMs`) for the deletes of made starts under way, before its pool closes. */
export function madeStartsForgotten(timeoutMs: number): Promise<void> {
  return madeStarts.settled(timeoutMs);
}

/**
 * A retry of a request whose record exists, or a call that needs its workflow running: starts the workflow if its
 * start is still pending (not yet made behind the answer, or lost to a crash); whether it had to.
 */
export async function startIfPending(deps: { db: Knex; temporal: Client }, workflowId: string): Promise<boolean> {
  const pending = await findPendingStart(deps.db, workflowId);
  if (pending) await startCommitted(deps, pending);
  return pending !== undefined;
}

/**
 * Calls a workflow (an Update, a signal) and, in the moments between its record's commit and its start (made
 * behind the answer), starts it from its pending start and calls once more.
 */
export async function callOnceStarted<R>(
  deps: { db: Knex; temporal: Client },
  workflowId: string,
  call: () => Promise<R>,
): Promise<R> {
  try {
    return await call();
  } catch (error) {
    if (!(error instanceof WorkflowNotFoundError) || !(await startIfPending(deps, workflowId))) throw error;
    return call();
  }
}

/** How long a committed start may wait for its own request before the dispatcher makes it. */
export const STALE_START_MS = 5000;

/** A row of the sweep's that Temporal refused as it stands: it stays pending, requeued behind the others. */
export interface Refusal {
  workflow_id: string;
  reason: string;
}

/** What a pass of the sweep did: the starts it made (the oldest made how long after its commit), and those Temporal refused. */
export interface SweptStarts {
  started: number;
  /** 0 when none was made. */
  oldest_waited_ms: number;
  refused: Refusal[];
}

/**
 * The dispatcher's sweep: starts what a crash between a commit and its start left behind, in one
 * transaction (a crash before its commit leaves the rows for the next sweep, whose starts repeat nothing).
 * An outage of Temporal fails the pass, to be retried whole; a start refused for itself (an argument or search
 * attribute the namespace does not take) stays pending, requeued with a growing wait: the rows come oldest first,
 * and refused rows left where they were would fill every batch and hold back every start behind them.
 */
export async function startStaleStarts(deps: { db: Knex; temporal: Client }, limit: number): Promise<SweptStarts> {
  return deps.db.transaction(async (trx) => {
    const stale = await claimStaleStarts(trx, STALE_START_MS, limit);
    // Its calls on Temporal, loaded, may outlast the session's idle-in-transaction bound.
    if (stale.length > 0) await allowIdleInTransaction(trx, DISPATCH_PASS_TIMEOUT_MS);
    const made: string[] = [];
    const refused: Refusal[] = [];
    let oldestWaitedMs = 0;
    await forEachConcurrently(stale, SWEEP_CONCURRENCY, async (start) => {
      const refusal = await refusalOf(() => startWorkflow(deps.temporal, start));
      if (refusal === undefined) {
        made.push(start.workflow_id);
        oldestWaitedMs = Math.max(oldestWaitedMs, start.waited_ms);
      } else refused.push({ workflow_id: start.workflow_id, reason: refusal });
    });
    await deletePendingStarts(trx, made);
    await requeueRefusedStarts(
      trx,
      refused.map((refusal) => refusal.workflow_id),
    );
    return { started: made.length, oldest_waited_ms: oldestWaitedMs, refused };
  });
}

/**
 * Makes a call of the sweep's: undefined once made, or why Temporal refused it as it stands. An outage of a
 * dependency (dependencyFailureOf) is thrown, failing the pass, as it is no row's fault.
 */
export async function refusalOf(call: () => Promise<void>): Promise<string | undefined> {
  try {
    await call();
    return undefined;
  } catch (error) {
    if (dependencyFailureOf(error)) throw error;
    return errorText(error);
  }
}

/** An error's message with its cause's (a Temporal ServiceError says what the server refused in its cause). */
function errorText(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  const cause = error instanceof Error && error.cause instanceof Error ? error.cause.message : undefined;
  return cause ? `${message}: ${cause}` : message;
}

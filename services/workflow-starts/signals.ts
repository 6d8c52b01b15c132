import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import { WorkflowExecutionAlreadyStartedError } from '@temporalio/common';
import type { Knex } from 'knex';
import { DISPATCH_PASS_TIMEOUT_MS } from '../../contracts/dispatch-outbox';
import { allowIdleInTransaction } from '../../db/connection';
import {
  claimStaleSignals,
  deleteDeliveredSignals,
  deleteMadeStarts,
  findPendingStart,
  requeueRefusedSignals,
  type PendingSignal,
} from '../../db/workflow-starts';
import { createBatchQueue } from '../../lib/background';
import { forEachConcurrently } from '../../lib/concurrency';
import { AFTER_ANSWER_LINGER_MS, afterAnswer, byDatabase, pushUntilSwept, SWEEP_CONCURRENCY } from './batches';
import { madeStartsForgotten, refusalOf, type Refusal } from './starts';

export type { PendingSignal } from '../../db/workflow-starts';

type Deps = { db: Knex; temporal: Client };

/**
 * Tells a workflow what a committed record says. A workflow whose start a crash prevented is started with it;
 * a closed one has nothing left to carry on (the record holds the outcome). Telling twice is harmless: each
 * workflow takes such a signal once.
 */
async function tellWorkflow(deps: Deps, signal: PendingSignal): Promise<void> {
  try {
    await deps.temporal.workflow.getHandle(signal.workflow_id).signal(signal.signal_name, ...signal.args);
  } catch (error) {
    if (!(error instanceof WorkflowNotFoundError)) throw error;
    const pending = await findPendingStart(deps.db, signal.workflow_id);
    if (pending) {
      try {
        await deps.temporal.workflow.signalWithStart(pending.workflow_type, {
          workflowId: pending.workflow_id,
          taskQueue: pending.task_queue,
          args: pending.args,
          typedSearchAttributes: pending.search_attributes,
          workflowIdReusePolicy: 'REJECT_DUPLICATE',
          signal: signal.signal_name,
          signalArgs: signal.args,
        });
      } catch (startError) {
        // It ran and closed after all (the pending start outlived its start): nothing to carry on.
        if (!(startError instanceof WorkflowExecutionAlreadyStartedError)) throw startError;
      }
      await deleteMadeStarts(deps.db, [pending.workflow_id]);
    }
  }
}

/** Delivered signals whose rows are to go, per process: under load, many deliveries' deletes are one statement. */
const delivered = createBatchQueue<{ db: Knex; signal: PendingSignal }>({
  maxBatch: 500,
  lingerMs: AFTER_ANSWER_LINGER_MS,
  write: (batch) =>
    byDatabase(batch, (db, items) =>
      deleteDeliveredSignals(
        db,
        items.map((item) => item.signal),
      ),
    ),
});

/**
 * The request path's delivery once its record has committed: the caller is answered without waiting for
 * Temporal. A delivery that keeps failing (Temporal unreachable), one that waited in the queue until the sweep's
 * grace nearly ended, or a process gone, leaves the row to the dispatcher's sweep.
 */
export function deliverAfterCommit(deps: Deps, signal: PendingSignal): void {
  pushUntilSwept(STALE_SIGNAL_MS, async () => {
    await tellWorkflow(deps, signal);
    delivered.push({ db: deps.db, signal });
  });
}

/**
 * For a stopping process: waits (at most `timeoutMs`) for what its requests left to do after their answers (the
 * starts and deliveries under way, then the deletes of delivered signals and made starts), before the Temporal connection
 * and the pool close under them. Whatever is left stays for the dispatcher's sweep.
 */
export async function afterAnswerWorkSettled(timeoutMs: number): Promise<void> {
  const until = Date.now() + timeoutMs;
  const left = () => Math.max(0, until - Date.now());
  await afterAnswer.settled(timeoutMs);
  await Promise.all([delivered.settled(left()), madeStartsForgotten(left())]);
}

/**
 * How long a committed signal is left to the process that committed it before the sweep delivers it: longer
 * than that process's own retries (0.5 + 2 + 5 s), and than a burst of answers queued behind each other.
 */
export const STALE_SIGNAL_MS = 30_000;

/** What a pass of the sweep did: the signals it delivered (the oldest how long after its commit), and those Temporal refused. */
export interface SweptSignals {
  signalled: number;
  /** 0 when none was delivered. */
  oldest_waited_ms: number;
  refused: Array<Refusal & { signal_name: string }>;
}

/**
 * The dispatcher's sweep: delivers what a crash, an outage or a burst of answers left undelivered past its grace,
 * and forgets it in one transaction.
 * As with starts, an outage fails the pass and a signal refused for itself (one whose pending start Temporal
 * refuses) stays pending, requeued behind the others, without failing the pass.
 */
export async function deliverStaleSignals(deps: Deps, limit: number): Promise<SweptSignals> {
  return deps.db.transaction(async (trx) => {
    const stale = await claimStaleSignals(trx, STALE_SIGNAL_MS, limit);
    // Its calls on Temporal, loaded, may outlast the session's idle-in-transaction bound.
    if (stale.length > 0) await allowIdleInTransaction(trx, DISPATCH_PASS_TIMEOUT_MS);
    const told: PendingSignal[] = [];
    const refused: SweptSignals['refused'] = [];
    let oldestWaitedMs = 0;
    // Told through the pool, not the transaction: one connection takes one statement at a time.
    await forEachConcurrently(stale, SWEEP_CONCURRENCY, async (signal) => {
      const refusal = await refusalOf(() => tellWorkflow(deps, signal));
      if (refusal === undefined) {
        told.push(signal);
        oldestWaitedMs = Math.max(oldestWaitedMs, signal.waited_ms);
      } else refused.push({ workflow_id: signal.workflow_id, signal_name: signal.signal_name, reason: refusal });
    });
    await deleteDeliveredSignals(trx, told);
    await requeueRefusedSignals(trx, refused);
    return { signalled: told.length, oldest_waited_ms: oldestWaitedMs, refused };
  });
}

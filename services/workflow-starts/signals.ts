import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import { WorkflowExecutionAlreadyStartedError } from '@temporalio/common';
import type { Knex } from 'knex';
import { claimStaleSignals, deletePendingSignal, deletePendingStart, findPendingStart, type PendingSignal } from '../../db/workflow-starts';
import { createBackgroundQueue } from '../../lib/background';

export type { PendingSignal } from '../../db/workflow-starts';

type Deps = { db: Knex; temporal: Client };

/**
 * Tells a workflow what a committed record says, then forgets the signal. A workflow whose start a crash
 * prevented is started with it; a closed one has nothing left to carry on (the record holds the outcome).
 * Delivering twice is harmless: each workflow takes such a signal once.
 */
export async function deliverSignal(deps: Deps, signal: PendingSignal): Promise<void> {
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
      await deletePendingStart(deps.db, pending.workflow_id);
    }
  }
  await deletePendingSignal(deps.db, signal);
}

/** Deliveries after the answer, per process: a few at a time, so a burst of answers does not swamp Temporal. */
const afterCommit = createBackgroundQueue({ concurrency: 16, retryDelaysMs: [500, 2000, 5000] });

/**
 * The request path's delivery once its record has committed: the caller is answered without waiting for
 * Temporal. A delivery that keeps failing (Temporal unreachable), or a process gone, leaves the row to the
 * dispatcher's sweep.
 */
export function deliverAfterCommit(deps: Deps, signal: PendingSignal): void {
  afterCommit.push(() => deliverSignal(deps, signal));
}

/**
 * For a stopping API: waits (at most `timeoutMs`) for the deliveries under way, before the Temporal connection
 * closes under them. Whatever is left undelivered stays for the dispatcher's sweep.
 */
export function deliveriesSettled(timeoutMs: number): Promise<void> {
  return afterCommit.settled(timeoutMs);
}

/**
 * How long a committed signal is left to the process that committed it before the sweep delivers it: longer
 * than that process's own retries (0.5 + 2 + 5 s), and than a burst of answers queued behind each other.
 */
export const STALE_SIGNAL_MS = 30_000;

/** The dispatcher's sweep: delivers what a crash or an outage left undelivered, in one transaction. */
export async function deliverStaleSignals(deps: Deps, limit: number): Promise<number> {
  return deps.db.transaction(async (trx) => {
    const stale = await claimStaleSignals(trx, STALE_SIGNAL_MS, limit);
    for (const signal of stale) await deliverSignal({ db: trx, temporal: deps.temporal }, signal);
    return stale.length;
  });
}

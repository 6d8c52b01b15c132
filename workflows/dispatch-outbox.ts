import {
  ActivityFailure,
  allHandlersFinished,
  condition,
  continueAsNew,
  log,
  proxyActivities,
  setHandler,
  type RetryPolicy,
  workflowInfo,
} from '@temporalio/workflow';
import type { createWebhookActivities } from '../activities/webhooks';
import { DISPATCH_PASS_TIMEOUT_MS, wakeSignal } from '../contracts/dispatch-outbox';
import { DATABASE_ACTIVITY_RETRY } from '../contracts/failures';

/** Passes per run before continuing as new, so that an idle dispatcher's history stays short too. */
export const PASSES_PER_RUN = 500;

/** The wait before the pass after one that gave up, until a pass has said what the poll interval is. */
const POLL_INTERVAL_UNKNOWN_MS = 10_000;

/**
 * A pass heartbeats (activities/webhooks.ts), so one whose worker died is retried after this instead of after its
 * start-to-close timeout: the pass runs the sweep of the starts a killed API left behind its answers, which must not
 * wait minutes for a dead worker.
 */
export const DISPATCH_PASS_HEARTBEAT_TIMEOUT = '10 seconds';

/**
 * The database retry policy with its backoff capped at 5 s instead of a minute: the pass runs the sweep of starts
 * left behind, so once an outage ends the next attempt comes within seconds. Giving up after its attempts only
 * lets the next pass begin.
 */
const DISPATCH_PASS_RETRY: RetryPolicy = { ...DATABASE_ACTIVITY_RETRY, maximumInterval: '5 seconds' };

const { dispatchOutboxBatch } = proxyActivities<ReturnType<typeof createWebhookActivities>>({
  startToCloseTimeout: DISPATCH_PASS_TIMEOUT_MS,
  heartbeatTimeout: DISPATCH_PASS_HEARTBEAT_TIMEOUT,
  // Nothing is marked dispatched before its deliveries started, so a pass that gives up loses nothing.
  retry: DISPATCH_PASS_RETRY,
});

/**
 * Reads the outbox for ever: each pass claims a batch of undispatched events, starts one delivery
 * workflow per event and matching subscription, and marks the batch dispatched. It passes again at once
 * while there is more, on a wake signal, or after the poll interval (the safety net for lost signals).
 * Batch size and poll interval come from the configuration of the worker that runs the pass. A pass
 * that gives up after its retries (Postgres or Temporal away for long) is logged, and the next one tries.
 */
export async function dispatchOutboxWorkflow(): Promise<void> {
  let woken = false;
  setHandler(wakeSignal, () => {
    woken = true;
  });
  let pollIntervalMs = POLL_INTERVAL_UNKNOWN_MS;
  for (let pass = 1; ; pass += 1) {
    woken = false;
    let more = false;
    try {
      const dispatched = await dispatchOutboxBatch({ task_queue: workflowInfo().taskQueue });
      ({ more, poll_interval_ms: pollIntervalMs } = dispatched);
    } catch (error) {
      if (!(error instanceof ActivityFailure)) throw error;
      log.warn('an outbox pass gave up; the next pass tries again', { error: error.cause?.message ?? error.message });
    }
    if (pass >= PASSES_PER_RUN || workflowInfo().continueAsNewSuggested) {
      await condition(allHandlersFinished);
      // The next run starts with a pass, so a wake-up that arrives now is not lost.
      return continueAsNew<typeof dispatchOutboxWorkflow>();
    }
    if (!more) await condition(() => woken, pollIntervalMs);
  }
}

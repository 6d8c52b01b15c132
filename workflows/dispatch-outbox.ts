import { allHandlersFinished, condition, continueAsNew, proxyActivities, setHandler, workflowInfo } from '@temporalio/workflow';
import type { createWebhookActivities } from '../activities/webhooks';
import { wakeSignal } from '../contracts/dispatch-outbox';

/** Passes per run before continuing as new, so that an idle dispatcher's history stays short too. */
export const PASSES_PER_RUN = 500;

const { dispatchOutboxBatch } = proxyActivities<ReturnType<typeof createWebhookActivities>>({
  startToCloseTimeout: '2 minutes',
  // Until Postgres and Temporal answer again; nothing is marked dispatched before its deliveries started.
  retry: { initialInterval: '1 second', maximumInterval: '30 seconds' },
});

/**
 * Reads the outbox for ever: each pass claims a batch of undispatched events, starts one delivery
 * workflow per event and matching subscription, and marks the batch dispatched. It passes again at once
 * while there is more, on a wake signal, or after the poll interval (the safety net for lost signals).
 * Batch size and poll interval come from the configuration of the worker that runs the pass.
 */
export async function dispatchOutboxWorkflow(): Promise<void> {
  let woken = false;
  setHandler(wakeSignal, () => {
    woken = true;
  });
  for (let pass = 1; ; pass += 1) {
    woken = false;
    const { more, poll_interval_ms } = await dispatchOutboxBatch({ task_queue: workflowInfo().taskQueue });
    if (pass >= PASSES_PER_RUN || workflowInfo().continueAsNewSuggested) {
      await condition(allHandlersFinished);
      // The next run starts with a pass, so a wake-up that arrives now is not lost.
      return continueAsNew<typeof dispatchOutboxWorkflow>();
    }
    if (!more) await condition(() => woken, poll_interval_ms);
  }
}

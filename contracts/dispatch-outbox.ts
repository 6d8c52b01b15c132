import { defineSignal } from '@temporalio/workflow';

/** One dispatcher per task queue; its fixed id makes every start after the first a no-op. */
export function outboxDispatcherId(taskQueue: string): string {
  return `outbox-dispatcher:${taskQueue}`;
}

/** The workflow's type name and signature, so that clients start it without loading workflow code. */
export const DISPATCH_OUTBOX_WORKFLOW = 'dispatchOutboxWorkflow';
export type DispatchOutboxWorkflow = () => Promise<void>;

/** Sent after events are committed (workers LISTEN for them), so the dispatcher need not wait for its poll. */
export const wakeSignal = defineSignal('wake');

/**
 * Longest one attempt of the dispatcher's pass may run (its start-to-close timeout), and so how long its transactions
 * may sit idle while they await Temporal: a batch's delivery starts (one per event and subscription) run inside the
 * transaction that claimed its events.
 */
export const DISPATCH_PASS_TIMEOUT_MS = 120_000;

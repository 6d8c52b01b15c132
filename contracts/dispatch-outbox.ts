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

import { defineQuery } from '@temporalio/workflow';
import type { RetrySchedule, WebhookEventBody } from '../domain/webhooks/rules';
import type { DeliveryState } from './aggregates/delivery';

export type { DeliveryState } from './aggregates/delivery';

/** The workflow id is delivery_id: one per (event, subscription), or a fresh one for a replay (of replay_of). */
export interface DeliverWebhookInput extends Pick<DeliveryState, 'delivery_id' | 'subscription_id' | 'replay_of'> {
  event: WebhookEventBody;
  /** The waits between attempts, fixed when the delivery starts. */
  schedule: RetrySchedule;
}

/**
 * The task queue of webhook deliveries beside a deployment's task queue: bulk fan-out never shares a queue, or a
 * worker's slots, with the human-facing paths (routings, approvals) of `taskQueue`.
 */
export function deliveryTaskQueueOf(taskQueue: string): string {
  return `${taskQueue}-deliveries`;
}

/** The workflow's type name and signature, so that clients start it without loading workflow code. */
export const DELIVER_WEBHOOK_WORKFLOW = 'deliverWebhookWorkflow';
export type DeliverWebhookWorkflow = (input: DeliverWebhookInput) => Promise<DeliveryState>;

export const deliveryStatusQuery = defineQuery<DeliveryState>('status');

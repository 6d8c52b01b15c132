import { defineQuery } from '@temporalio/workflow';
import type { DeliveryFailureReason, DeliveryStatus, RetrySchedule, WebhookEventBody } from '../domain/webhooks/rules';

export interface DeliverWebhookInput {
  /** The workflow id: one per (event, subscription), or a fresh one for a replay. */
  delivery_id: string;
  subscription_id: string;
  event: WebhookEventBody;
  /** The waits between attempts, fixed when the delivery starts. */
  schedule: RetrySchedule;
  /** The delivery this one replays, if it is a replay. */
  replay_of?: string | undefined;
}

/** Everything the delivery's read model shows; versioned so projections apply in order. */
export interface DeliveryState {
  delivery_id: string;
  version: number;
  subscription_id: string;
  event_id: string;
  event: string;
  status: DeliveryStatus;
  attempts: number;
  last_status_code?: number | undefined;
  last_error?: string | undefined;
  failure_reason?: DeliveryFailureReason | undefined;
  next_attempt_at?: string | undefined;
  replay_of?: string | undefined;
  created_at: string;
  updated_at: string;
  completed_at?: string | undefined;
}

/** The workflow's type name and signature, so that clients start it without loading workflow code. */
export const DELIVER_WEBHOOK_WORKFLOW = 'deliverWebhookWorkflow';
export type DeliverWebhookWorkflow = (input: DeliverWebhookInput) => Promise<DeliveryState>;

export const deliveryStatusQuery = defineQuery<DeliveryState>('status');

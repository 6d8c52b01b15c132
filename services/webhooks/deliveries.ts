import { createHash, randomUUID } from 'node:crypto';
import type { Client } from '@temporalio/client';
import { WorkflowExecutionAlreadyStartedError } from '@temporalio/common';
import {
  DELIVER_WEBHOOK_WORKFLOW,
  deliveryTaskQueueOf,
  type DeliverWebhookInput,
  type DeliverWebhookWorkflow,
} from '../../contracts/deliver-webhook';
import { EventKindKey, WebhookSubscriptionKey } from '../../contracts/search-attributes';

const hashId = (prefix: string, ...parts: string[]) =>
  `${prefix}${createHash('sha256').update(parts.join('\n')).digest('hex').slice(0, 32)}`;

/** One delivery per (event, subscription), whoever dispatches it and however often. */
export function deliveryIdFor(eventId: string, subscriptionId: string): string {
  return hashId('whdel_', eventId, subscriptionId);
}

/** A replay is a delivery of its own; with an Idempotency-Key a retried request reaches the same one. */
export function replayDeliveryIdFor(
  originalDeliveryId: string,
  principalId: string,
  idempotencyKey: string | undefined,
): string {
  return idempotencyKey
    ? hashId('whdel_', 'replay', originalDeliveryId, principalId, idempotencyKey)
    : hashId('whdel_', 'replay', originalDeliveryId, randomUUID());
}

/**
 * Starts a delivery workflow (workflow id = delivery id) on the deliveries' task queue of `taskQueue`, with the
 * subscription's organization as its fairness key: when deliveries back up, the server hands out their tasks
 * round-robin by organization, so one organization's thousands do not starve another's few. Starting one that
 * exists, running or closed, starts nothing: that is what makes a second dispatch of the same event harmless.
 */
export async function startDelivery(
  temporal: Client,
  taskQueue: string,
  input: DeliverWebhookInput,
  organizationId: string,
): Promise<void> {
  try {
    await temporal.workflow.start<DeliverWebhookWorkflow>(DELIVER_WEBHOOK_WORKFLOW, {
      workflowId: input.delivery_id,
      taskQueue: deliveryTaskQueueOf(taskQueue),
      priority: { fairnessKey: organizationId },
      args: [input],
      workflowIdConflictPolicy: 'USE_EXISTING',
      workflowIdReusePolicy: 'REJECT_DUPLICATE',
      typedSearchAttributes: [
        { key: WebhookSubscriptionKey, value: input.subscription_id },
        { key: EventKindKey, value: input.event.event },
      ],
    });
  } catch (error) {
    if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
  }
}

import type { Client } from '@temporalio/client';
import type { Knex } from 'knex';
import { upsertDeliveryProjection } from '../db/webhook-deliveries';
import type { Logger } from '../lib/logger';
import type { DeliveryState } from '../contracts/deliver-webhook';
import { withInvalidDataFailures } from './failures';
import type { WorkerSettings } from './settings';
import { recordDeliveryAttempt, type RecordAttemptInput } from './webhook-attempts';
import { dispatchOutboxBatch } from './webhook-dispatch';
import { createSendDelivery } from './webhook-send';

export { DISPATCH_START_CONCURRENCY, type DispatchResult } from './webhook-dispatch';
export { EVENT_HEADER, SUBSCRIPTION_HEADER, type SendResult, type SentOutcome } from './webhook-send';
export type { RecordAttemptInput } from './webhook-attempts';

/**
 * The webhook activities: the outbox dispatcher's pass (webhook-dispatch), one attempt of a delivery
 * (webhook-send), and the delivery's read model and attempt log (webhook-attempts).
 */
export function createWebhookActivities(deps: {
  db: Knex;
  settings: WorkerSettings;
  logger: Logger;
  temporal: Client;
}) {
  return withInvalidDataFailures({
    dispatchOutboxBatch: (input: { task_queue: string }) => dispatchOutboxBatch(deps, input),
    sendDelivery: createSendDelivery(deps),
    /** The delivery's read model; applied only when newer than what is stored. */
    async projectDelivery(state: DeliveryState): Promise<void> {
      await upsertDeliveryProjection(deps.db, state);
    },
    recordDeliveryAttempt: (input: RecordAttemptInput) => recordDeliveryAttempt(deps, input),
  });
}

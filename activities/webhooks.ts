import { Context } from '@temporalio/activity';
import type { Client } from '@temporalio/client';
import type { Knex } from 'knex';
import { upsertDeliveryProjection } from '../db/webhook-deliveries';
import type { Logger } from '../lib/logger';
import type { DeliveryState } from '../contracts/deliver-webhook';
import { withInvalidDataFailures } from './failures';
import { whileHeartbeating } from './heartbeats';
import type { WorkerSettings } from './settings';
import { recordDeliveryAttempt, type RecordAttemptInput } from './webhook-attempts';
import { dispatchOutboxBatch } from './webhook-dispatch';
import { createSendDelivery } from './webhook-send';

export { DISPATCH_START_CONCURRENCY, type DispatchResult } from './webhook-dispatch';
export { EVENT_HEADER, SUBSCRIPTION_HEADER, type SendResult, type SentOutcome } from './webhook-send';
export type { RecordAttemptInput } from './webhook-attempts';

/**
 * How often a dispatcher's pass tells Temporal its worker lives (the heartbeat timeout is
 * DISPATCH_PASS_HEARTBEAT_TIMEOUT of workflows/dispatch-outbox.ts).
 */
export const DISPATCH_HEARTBEAT_EVERY_MS = 1000;

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
    /**
     * Heartbeats: the pass sweeps the starts that a killed API left behind its answers, so a pass lost with its own
     * worker must be retried within seconds, not after its start-to-close timeout.
     */
    dispatchOutboxBatch: (input: { task_queue: string }) =>
      whileHeartbeating(Context.current(), DISPATCH_HEARTBEAT_EVERY_MS, () => dispatchOutboxBatch(deps, input)),
    sendDelivery: createSendDelivery(deps),
    /** The delivery's read model; applied only when newer than what is stored. */
    async projectDelivery(state: DeliveryState): Promise<void> {
      await upsertDeliveryProjection(deps.db, state);
    },
    recordDeliveryAttempt: (input: RecordAttemptInput) => recordDeliveryAttempt(deps, input),
  });
}

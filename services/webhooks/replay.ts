import type { Client } from '@temporalio/client';
import type { Knex } from 'knex';
import { findEvent } from '../../db/events';
import { findSubscription } from '../../db/webhooks';
import { findDelivery } from '../../db/webhook-deliveries';
import type { RetrySchedule } from '../../domain/webhooks/rules';
import type { DeliveryState } from '../../contracts/deliver-webhook';
import { replayDeliveryIdFor, startDelivery } from './deliveries';

export interface ReplayDeps {
  db: Knex;
  temporal: Client;
  taskQueue: string;
  retrySchedule: RetrySchedule;
}

export type ReplayOutcome =
  | { ok: true; delivery: DeliveryState }
  | {
      ok: false;
      code: 'webhook_not_found' | 'webhook_delivery_not_found' | 'webhook_disabled' | 'webhook_delivery_in_progress';
    };

/**
 * Replays a finished delivery as GitHub redelivers: a new delivery (its own id, attempts and log, with
 * replay_of naming the original) of the same event body, carrying the same X-Svc-Delivery-ID (the
 * event id), so a receiver that already processed the event recognises it. It is signed afresh with the
 * secrets live now. A delivery still being attempted is not replayed beside itself.
 */
export async function replayDelivery(
  deps: ReplayDeps,
  input: {
    subscription_id: string;
    delivery_id: string;
    principal_id: string;
    organization_id: string;
    idempotency_key?: string | undefined;
  },
): Promise<ReplayOutcome> {
  const [subscription, original] = await Promise.all([
    findSubscription(deps.db, input.subscription_id, { organizationId: input.organization_id }),
    findDelivery(deps.db, input.organization_id, input.subscription_id, input.delivery_id),
  ]);
  if (!subscription) return { ok: false, code: 'webhook_not_found' };
  if (!original) return { ok: false, code: 'webhook_delivery_not_found' };
  if (original.status === 'pending' || original.status === 'retrying')
    return { ok: false, code: 'webhook_delivery_in_progress' };
  if (subscription.status !== 'enabled') return { ok: false, code: 'webhook_disabled' };
  const event = await findEvent(deps.db, input.organization_id, original.event_id);
  if (!event)
    throw new Error(`The event ${original.event_id} of delivery ${original.delivery_id} is missing from the outbox`);

  const delivery_id = replayDeliveryIdFor(original.delivery_id, input.principal_id, input.idempotency_key);
  await startDelivery(
    deps.temporal,
    deps.taskQueue,
    {
      delivery_id,
      subscription_id: subscription.subscription_id,
      event: { id: event.event_id, event: event.event, created_at: event.created_at.toISOString(), data: event.data },
      schedule: deps.retrySchedule,
      replay_of: original.delivery_id,
    },
    input.organization_id,
  );
  // As accepted; its first attempt runs in the workflow's first task, which the reply does not wait for.
  const started = (await deps.temporal.workflow.getHandle(delivery_id).describe()).startTime.toISOString();
  return {
    ok: true,
    delivery: {
      delivery_id,
      version: 0,
      subscription_id: subscription.subscription_id,
      event_id: event.event_id,
      event: event.event,
      status: 'pending',
      attempts: 0,
      replay_of: original.delivery_id,
      created_at: started,
      updated_at: started,
    },
  };
}

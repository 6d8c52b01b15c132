import type { Client } from '@temporalio/client';
import type { Knex } from 'knex';
import {
  claimUndispatchedEvents,
  listEnabledSubscriptionEvents,
  markEventsDispatched,
  type OutboxRow,
  type SubscriptionRow,
} from '../db/webhooks';
import { subscriptionMatches, type RetrySchedule, type WebhookEventBody } from '../domain/webhooks/rules';
import { forEachConcurrently } from '../lib/concurrency';
import type { Logger } from '../lib/logger';
import { deliveryIdFor, startDelivery } from '../services/webhooks/deliveries';
import { startStaleStarts } from '../services/workflow-starts/starts';
import { deliverStaleSignals } from '../services/workflow-starts/signals';
import type { WorkerSettings } from './settings';

/** Workflow starts in flight at once while a batch fans out. */
export const DISPATCH_START_CONCURRENCY = 32;

export interface DispatchResult {
  /** Workflow starts a crash had left committed but unmade (services/workflow-starts). */
  started?: number;
  events: number;
  deliveries: number;
  /** The batch was full: there may be more to dispatch right away. */
  more: boolean;
  poll_interval_ms: number;
}

interface DispatchDeps {
  db: Knex;
  settings: WorkerSettings;
  logger: Logger;
  temporal: Client;
}

/** One delivery per event and enabled subscription that wants it. */
function deliveriesFor(
  events: readonly OutboxRow[],
  subscriptions: ReadonlyArray<Pick<SubscriptionRow, 'subscription_id' | 'events' | 'organization_id'>>,
  schedule: RetrySchedule,
) {
  return events.flatMap((row) => {
    const event: WebhookEventBody = {
      id: row.event_id,
      event: row.event,
      created_at: row.created_at.toISOString(),
      data: row.data,
    };
    return (
      subscriptions
        // An organization's events reach only its own subscriptions.
        .filter(
          (subscription) =>
            subscription.organization_id === row.organization_id && subscriptionMatches(subscription.events, row.event),
        )
        .map((subscription) => ({
          input: {
            delivery_id: deliveryIdFor(row.event_id, subscription.subscription_id),
            subscription_id: subscription.subscription_id,
            event,
            schedule,
          },
          organization_id: subscription.organization_id,
        }))
    );
  });
}

/**
 * Starts the workflows and delivers the signals a crash or an outage held back; how many of each, and whether a
 * batch came full (there may be more).
 */
async function catchUpStaleStarts(deps: DispatchDeps): Promise<{ started: number; more: boolean }> {
  const { db, logger, temporal } = deps;
  const { dispatchBatchSize } = deps.settings.webhooks;
  const starts = await startStaleStarts({ db, temporal }, dispatchBatchSize);
  const { started } = starts;
  // Past the grace a start is either lost (its process died after the commit) or left by a queue behind a burst.
  if (started > 0) logger.warn('started workflows whose start was still pending past its grace', { started });
  if (starts.refused.length > 0)
    logger.error('Temporal refused pending workflow starts; they stay pending and are tried again later', {
      refused: starts.refused,
    });
  const signals = await deliverStaleSignals({ db, temporal }, dispatchBatchSize);
  const { signalled } = signals;
  if (signalled > 0) logger.warn('delivered workflow signals that a crash or an outage had held back', { signalled });
  if (signals.refused.length > 0)
    logger.error('Temporal refused pending workflow signals; they stay pending and are tried again later', {
      refused: signals.refused,
    });
  const more =
    started + starts.refused.length === dispatchBatchSize || signalled + signals.refused.length === dispatchBatchSize;
  return { started, more };
}

/**
 * One pass of the outbox dispatcher, in one transaction: claim the oldest undispatched events, start
 * a delivery per event and matching enabled subscription, mark the events dispatched. A crash before
 * the commit leaves the events undispatched and the next pass starts the same delivery ids again,
 * which starts nothing twice: nothing is lost, nothing is delivered twice. Each pass first starts the
 * workflows whose records were committed but whose start a crash prevented.
 */
export async function dispatchOutboxBatch(deps: DispatchDeps, input: { task_queue: string }): Promise<DispatchResult> {
  const { db, logger } = deps;
  const { dispatchBatchSize, dispatchPollMs, retrySchedule } = deps.settings.webhooks;
  const { started, more: backlog } = await catchUpStaleStarts(deps);
  return db.transaction(async (trx) => {
    const events = await claimUndispatchedEvents(trx, dispatchBatchSize);
    if (events.length === 0)
      return { started, events: 0, deliveries: 0, more: backlog, poll_interval_ms: dispatchPollMs };
    const deliveries = deliveriesFor(events, await listEnabledSubscriptionEvents(trx), retrySchedule);
    await forEachConcurrently(deliveries, DISPATCH_START_CONCURRENCY, (delivery) =>
      startDelivery(deps.temporal, input.task_queue, delivery.input, delivery.organization_id),
    );
    await markEventsDispatched(
      trx,
      events.map((row) => row.event_id),
    );
    if (deliveries.length > 0)
      logger.debug('outbox dispatched', { events: events.length, deliveries: deliveries.length });
    return {
      started,
      events: events.length,
      deliveries: deliveries.length,
      more: events.length === dispatchBatchSize || backlog,
      poll_interval_ms: dispatchPollMs,
    };
  });
}

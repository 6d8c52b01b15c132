import type { Client } from '@temporalio/client';
import type { Knex } from 'knex';
import { DISPATCH_PASS_TIMEOUT_MS } from '../contracts/dispatch-outbox';
import { allowIdleInTransaction } from '../db/connection';
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
import { STALE_START_MS, startStaleStarts } from '../services/workflow-starts/starts';
import { deliverStaleSignals, STALE_SIGNAL_MS } from '../services/workflow-starts/signals';
import type { WorkerSettings } from './settings';

/** Workflow starts in flight at once while a batch fans out. */
export const DISPATCH_START_CONCURRENCY = 32;

export interface DispatchResult {
  /** Workflow starts left committed but unmade past their grace (services/workflow-starts). */
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
 * How much longer than its grace and the poll interval a swept row must have waited for its pass to warn. A crash,
 * an outage or a burst of answers leaves rows to the sweep, which on time takes them within the poll of their grace
 * (info); a row a minute later means the sweep itself was held back: passes failing through an outage, or a backlog
 * larger than it keeps up with.
 */
export const SWEPT_LATE_AFTER_MS = 60_000;

/** A pass's report of the starts or signals it swept: warns only when the oldest came late (SWEPT_LATE_AFTER_MS). */
function logSwept(deps: DispatchDeps, message: string, swept: Record<string, number>, oldest: number, graceMs: number) {
  const late = oldest > graceMs + deps.settings.webhooks.dispatchPollMs + SWEPT_LATE_AFTER_MS;
  deps.logger.log(late ? 'warn' : 'info', message, {
    ...swept,
    oldest_waited_ms: Math.round(oldest),
    grace_ms: graceMs,
  });
}

/**
 * Starts the workflows and delivers the signals left past their grace (by a crash, an outage or a burst of
 * answers); how many of each, and whether a batch came full (there may be more).
 */
async function catchUpStaleStarts(deps: DispatchDeps): Promise<{ started: number; more: boolean }> {
  const { db, logger, temporal } = deps;
  const { dispatchBatchSize } = deps.settings.webhooks;
  const starts = await startStaleStarts({ db, temporal }, dispatchBatchSize);
  const { started } = starts;
  if (started > 0)
    logSwept(
      deps,
      'started workflows whose start was still pending past its grace',
      { started },
      starts.oldest_waited_ms,
      STALE_START_MS,
    );
  if (starts.refused.length > 0)
    logger.error('Temporal refused pending workflow starts; they stay pending and are tried again later', {
      refused: starts.refused,
    });
  const signals = await deliverStaleSignals({ db, temporal }, dispatchBatchSize);
  const { signalled } = signals;
  if (signalled > 0)
    logSwept(
      deps,
      'delivered workflow signals still pending past their grace (left by a crash, an outage or a burst of answers)',
      { signalled },
      signals.oldest_waited_ms,
      STALE_SIGNAL_MS,
    );
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
    // Thousands of starts (a noisy organization's events times its subscriptions) outlast the session's bound.
    await allowIdleInTransaction(trx, DISPATCH_PASS_TIMEOUT_MS);
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

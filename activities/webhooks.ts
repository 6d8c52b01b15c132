import { ApplicationFailure } from '@temporalio/activity';
import type { Client } from '@temporalio/client';
import type { Knex } from 'knex';
import { appendProvenance } from '../db/ledger';
import {
  claimUndispatchedEvents,
  clearEndpointFailures,
  findSubscription,
  listEnabledSubscriptionEvents,
  listLiveSecrets,
  markEventsDispatched,
  noteEndpointFailure,
  updateSubscription,
  upsertAttempt,
  upsertDeliveryProjection,
  type AttemptOutcomeKind,
  type SubscriptionRow,
} from '../db/webhooks';
import {
  failingTooLong,
  subscriptionMatches,
  type AttemptVerdict,
  type EndpointDisableReason,
  type WebhookEventBody,
} from '../domain/webhooks/rules';
import type { WorkerSettings } from './settings';
import type { Logger } from '../lib/logger';
import { postJson } from '../lib/outbound/post';
import { DELIVERY_ID_HEADER, SIGNATURE_HEADER, signatureHeader } from '../lib/outbound/signature';
import { createOutboundGuard } from '../lib/outbound/url-guard';
import { createSecretBox, SecretsUnavailableError } from '../lib/secret-box';
import { deliveryIdFor, startDelivery } from '../services/webhooks/deliveries';
import { secretContext } from '../services/webhooks/subscriptions';
import { startStaleStarts } from '../services/workflow-starts/starts';
import { deliverStaleSignals } from '../services/workflow-starts/signals';
import { subscriptionChangeEntry } from '../services/webhooks/subscription-provenance';
import { recordWebhookAttempt } from '../services/observability/metrics';
import type { DeliveryState } from '../contracts/deliver-webhook';
import { FAILURE_TYPES } from '../contracts/failures';
import { withInvalidDataFailures } from './failures';

/** Headers beside the signature: which kind of event, and which subscription, a receiver is looking at. */
export const EVENT_HEADER = 'X-Svc-Event';
export const SUBSCRIPTION_HEADER = 'X-Svc-Subscription-ID';

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

export interface SentOutcome {
  status?: number | undefined;
  retry_after_seconds?: number | undefined;
  refused?: boolean | undefined;
  error?: string | undefined;
  response_snippet?: string | undefined;
  duration_ms: number;
}

/** What one call of sendDelivery came to. */
export type SendResult =
  | { kind: 'sent'; url: string; attempted_at: string; outcome: SentOutcome }
  | { kind: 'inactive'; reason: 'subscription_disabled' | 'subscription_deleted' }
  /** Our side failed before anything was sent (set by the workflow when the activity gave up). */
  | { kind: 'error'; error: string };

export interface RecordAttemptInput {
  state: DeliveryState;
  sent: SendResult;
  verdict: AttemptVerdict;
  /** Workflow time, which the endpoint's failing-for-days check is measured in. */
  observed_at: string;
  next_attempt_at?: string | undefined;
}

async function forEachConcurrently<T>(
  items: readonly T[],
  concurrency: number,
  run: (item: T) => Promise<void>,
): Promise<void> {
  let next = 0;
  const lane = async () => {
    for (let index = next++; index < items.length; index = next++) await run(items[index]!);
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, items.length) }, lane));
}

function outcomeKind(sent: SendResult, verdict: AttemptVerdict): AttemptOutcomeKind {
  if (sent.kind !== 'sent') return 'error';
  if (verdict.kind === 'delivered') return 'delivered';
  if (verdict.kind === 'give_up' && verdict.reason === 'endpoint_gone') return 'gone';
  return sent.outcome.refused ? 'refused' : 'failed';
}

export function createWebhookActivities(deps: {
  db: Knex;
  settings: WorkerSettings;
  logger: Logger;
  temporal: Client;
}) {
  const { db, logger, settings } = deps;
  const box = createSecretBox(settings.webhooks.secretKeys);
  const guard = createOutboundGuard(settings.outbound.policy);

  /**
   * Disables an endpoint that answered 410 or has failed too long, once: the row is locked by the
   * caller's update, and only the change from enabled writes the provenance record and the event.
   */
  async function disableEndpoint(
    trx: Knex.Transaction,
    subscription: SubscriptionRow,
    reason: EndpointDisableReason,
    input: RecordAttemptInput,
  ): Promise<void> {
    const disabled = await updateSubscription(trx, subscription.subscription_id, {
      status: 'disabled',
      disabled_reason: reason,
      disabled_at: new Date(input.observed_at),
    });
    const failingSince = subscription.failing_since?.toISOString() ?? null;
    const lastStatus = input.sent.kind === 'sent' ? (input.sent.outcome.status ?? null) : null;
    await appendProvenance(trx, {
      entry: subscriptionChangeEntry(disabled, {
        action: 'disabled',
        timestamp: input.observed_at,
        input: {
          delivery_id: input.state.delivery_id,
          attempt: input.state.attempts,
          status_code: lastStatus,
          failing_since: failingSince,
        },
        reasoning:
          reason === 'endpoint_gone'
            ? 'The endpoint answered 410 Gone'
            : `Every attempt since ${failingSince ?? 'the first'} failed, for longer than ${settings.webhooks.disableAfterFailingSeconds} s`,
      }),
      organization_id: subscription.organization_id,
      events: [
        {
          event: 'webhook.endpoint_disabled',
          data: {
            subscription_id: subscription.subscription_id,
            reason,
            failing_since: failingSince,
            disabled_at: input.observed_at,
            delivery_id: input.state.delivery_id,
            last_status_code: lastStatus,
          },
        },
      ],
    });
    logger.warn('webhook endpoint disabled', {
      subscription_id: subscription.subscription_id,
      reason,
      failing_since: failingSince,
      delivery_id: input.state.delivery_id,
    });
  }

  return withInvalidDataFailures({
    /**
     * One pass of the outbox dispatcher, in one transaction: claim the oldest undispatched events, start
     * a delivery per event and matching enabled subscription, mark the events dispatched. A crash before
     * the commit leaves the events undispatched and the next pass starts the same delivery ids again,
     * which starts nothing twice: nothing is lost, nothing is delivered twice. Each pass first starts the
     * workflows whose records were committed but whose start a crash prevented.
     */
    async dispatchOutboxBatch(input: { task_queue: string }): Promise<DispatchResult> {
      const { dispatchBatchSize, dispatchPollMs, retrySchedule } = settings.webhooks;
      const started = await startStaleStarts({ db, temporal: deps.temporal }, dispatchBatchSize);
      if (started > 0) logger.warn('started workflows whose start a crash had prevented', { started });
      const signalled = await deliverStaleSignals({ db, temporal: deps.temporal }, dispatchBatchSize);
      if (signalled > 0)
        logger.warn('delivered workflow signals that a crash or an outage had held back', { signalled });
      const backlog = started === dispatchBatchSize || signalled === dispatchBatchSize;
      return db.transaction(async (trx) => {
        const events = await claimUndispatchedEvents(trx, dispatchBatchSize);
        if (events.length === 0)
          return { started, events: 0, deliveries: 0, more: backlog, poll_interval_ms: dispatchPollMs };
        const subscriptions = await listEnabledSubscriptionEvents(trx);
        const deliveries = events.flatMap((row) => {
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
                  subscription.organization_id === row.organization_id &&
                  subscriptionMatches(subscription.events, row.event),
              )
              .map((subscription) => ({
                delivery_id: deliveryIdFor(row.event_id, subscription.subscription_id),
                subscription_id: subscription.subscription_id,
                event,
                schedule: retrySchedule,
              }))
          );
        });
        await forEachConcurrently(deliveries, DISPATCH_START_CONCURRENCY, (delivery) =>
          startDelivery(deps.temporal, input.task_queue, delivery),
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
    },

    /**
     * One attempt: the body exactly as the spec gives it, signed with every live secret of the
     * subscription (two during a rotation's overlap), POSTed through the outbound guard. The receiver's
     * answer, whatever it is, is the result; only our own failures throw.
     */
    async sendDelivery(input: {
      delivery_id: string;
      subscription_id: string;
      event: WebhookEventBody;
      attempt: number;
    }): Promise<SendResult> {
      const subscription = await findSubscription(db, input.subscription_id);
      if (!subscription) return { kind: 'inactive', reason: 'subscription_deleted' };
      if (subscription.status !== 'enabled') return { kind: 'inactive', reason: 'subscription_disabled' };
      let secrets: string[];
      try {
        secrets = (await listLiveSecrets(db, subscription.subscription_id)).map((row) =>
          box.open(row.sealed, secretContext(row.subscription_id, row.secret_id)),
        );
      } catch (error) {
        // Retrying within seconds will not configure the key; the workflow's schedule tries again later.
        if (error instanceof SecretsUnavailableError)
          throw ApplicationFailure.nonRetryable(error.message, FAILURE_TYPES.secretsUnavailable);
        throw error;
      }
      if (secrets.length === 0)
        throw ApplicationFailure.nonRetryable(
          `Subscription ${subscription.subscription_id} has no live signing secret`,
          FAILURE_TYPES.noSigningSecret,
        );

      const rawBody = JSON.stringify(input.event);
      const timestamp = Math.floor(Date.now() / 1000);
      const attempted_at = new Date().toISOString();
      const result = await postJson(subscription.url, rawBody, {
        headers: {
          [SIGNATURE_HEADER]: signatureHeader(secrets, timestamp, rawBody),
          [DELIVERY_ID_HEADER]: input.event.id,
          [EVENT_HEADER]: input.event.event,
          [SUBSCRIPTION_HEADER]: subscription.subscription_id,
        },
        timeoutMs: settings.outbound.timeoutMs,
        guard,
      });
      const outcome: SentOutcome = {
        status: result.status,
        retry_after_seconds: result.retryAfterSeconds,
        refused: result.refused,
        error: result.error,
        response_snippet: result.responseSnippet,
        duration_ms: result.durationMs,
      };
      const ok = result.status !== undefined && result.status >= 200 && result.status < 300;
      recordWebhookAttempt({
        delivered: ok,
        event_created_at: input.event.created_at,
        answered_at: new Date().toISOString(),
      });
      const context = {
        delivery_id: input.delivery_id,
        subscription_id: subscription.subscription_id,
        event_id: input.event.id,
        attempt: input.attempt,
        status: result.status,
        duration_ms: result.durationMs,
      };
      if (ok) logger.debug('webhook delivered', context);
      else logger.info('webhook attempt failed', { ...context, error: result.error });
      return { kind: 'sent', url: subscription.url, attempted_at, outcome };
    },

    /** The delivery's read model; applied only when newer than what is stored. */
    async projectDelivery(state: DeliveryState): Promise<void> {
      await upsertDeliveryProjection(db, state);
    },

    /**
     * Logs an attempt with the state it leaves, and notes the result on the endpoint: a success ends
     * its run of failures; a 410, or failures for longer than the configured time, disable it. One
     * transaction, every write keyed, so a retry repeats nothing.
     */
    async recordDeliveryAttempt(input: RecordAttemptInput): Promise<{ endpoint_disabled: boolean }> {
      const { state, sent, verdict } = input;
      return db.transaction(async (trx) => {
        await upsertDeliveryProjection(trx, state);
        await upsertAttempt(trx, {
          delivery_id: state.delivery_id,
          attempt: state.attempts,
          url: sent.kind === 'sent' ? sent.url : null,
          attempted_at: sent.kind === 'sent' ? sent.attempted_at : input.observed_at,
          duration_ms: sent.kind === 'sent' ? sent.outcome.duration_ms : 0,
          status_code: sent.kind === 'sent' ? (sent.outcome.status ?? null) : null,
          error: sent.kind === 'sent' ? (sent.outcome.error ?? null) : sent.kind === 'error' ? sent.error : null,
          response_snippet: sent.kind === 'sent' ? (sent.outcome.response_snippet ?? null) : null,
          retry_after_seconds: sent.kind === 'sent' ? (sent.outcome.retry_after_seconds ?? null) : null,
          outcome: outcomeKind(sent, verdict),
          next_attempt_at: input.next_attempt_at ?? null,
        });
        // Our own failures say nothing about the endpoint.
        if (sent.kind !== 'sent') return { endpoint_disabled: false };
        if (verdict.kind === 'delivered') {
          await clearEndpointFailures(trx, state.subscription_id);
          return { endpoint_disabled: false };
        }
        const subscription = await noteEndpointFailure(trx, state.subscription_id, input.observed_at);
        if (!subscription) return { endpoint_disabled: false };
        if (subscription.status !== 'enabled') return { endpoint_disabled: true };
        const gone = verdict.kind === 'give_up' && verdict.reason === 'endpoint_gone';
        const failing =
          subscription.failing_since !== null &&
          failingTooLong(
            subscription.failing_since.getTime(),
            Date.parse(input.observed_at),
            settings.webhooks.disableAfterFailingSeconds,
          );
        if (!gone && !failing) return { endpoint_disabled: false };
        await disableEndpoint(trx, subscription, gone ? 'endpoint_gone' : 'failing', input);
        return { endpoint_disabled: true };
      });
    },
  });
}

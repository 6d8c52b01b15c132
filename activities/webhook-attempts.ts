import type { Knex } from 'knex';
import { appendProvenance } from '../db/ledger';
import { clearEndpointFailures, noteEndpointFailure, updateSubscription, type SubscriptionRow } from '../db/webhooks';
import {
  upsertAttempt,
  upsertDeliveryProjection,
  type AttemptOutcomeKind,
  type AttemptRow,
} from '../db/webhook-deliveries';
import { failingTooLong, type AttemptVerdict, type EndpointDisableReason } from '../domain/webhooks/rules';
import type { Logger } from '../lib/logger';
import { subscriptionChangeEntry } from '../services/webhooks/subscription-provenance';
import type { DeliveryState } from '../contracts/deliver-webhook';
import type { SendResult } from './webhook-send';
import type { WorkerSettings } from './settings';

export interface RecordAttemptInput {
  state: DeliveryState;
  sent: SendResult;
  verdict: AttemptVerdict;
  /** Workflow time, which the endpoint's failing-for-days check is measured in. */
  observed_at: string;
  next_attempt_at?: string | undefined;
}

interface AttemptDeps {
  db: Knex;
  settings: WorkerSettings;
  logger: Logger;
}

function outcomeKind(sent: SendResult, verdict: AttemptVerdict): AttemptOutcomeKind {
  if (sent.kind !== 'sent') return 'error';
  if (verdict.kind === 'delivered') return 'delivered';
  if (verdict.kind === 'give_up' && verdict.reason === 'endpoint_gone') return 'gone';
  return sent.outcome.refused ? 'refused' : 'failed';
}

/** The attempt's row in the delivery's log. */
function attemptRow(input: RecordAttemptInput): AttemptRow {
  const { state, sent, verdict } = input;
  return {
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
  };
}

/**
 * Disables an endpoint that answered 410 or has failed too long, once: the row is locked by the
 * caller's update, and only the change from enabled writes the provenance record and the event.
 */
async function disableEndpoint(
  deps: AttemptDeps,
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
          : `Every attempt since ${failingSince ?? 'the first'} failed, for longer than ${deps.settings.webhooks.disableAfterFailingSeconds} s`,
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
  deps.logger.warn('webhook endpoint disabled', {
    subscription_id: subscription.subscription_id,
    reason,
    failing_since: failingSince,
    delivery_id: input.state.delivery_id,
  });
}

/** Notes a failed attempt on its endpoint, and disables the endpoint when it answered 410 or fails too long. */
async function noteFailedAttempt(
  deps: AttemptDeps,
  trx: Knex.Transaction,
  input: RecordAttemptInput,
): Promise<{ endpoint_disabled: boolean }> {
  const subscription = await noteEndpointFailure(trx, input.state.subscription_id, input.observed_at);
  if (!subscription) return { endpoint_disabled: false };
  if (subscription.status !== 'enabled') return { endpoint_disabled: true };
  const gone = input.verdict.kind === 'give_up' && input.verdict.reason === 'endpoint_gone';
  const failing =
    subscription.failing_since !== null &&
    failingTooLong(
      subscription.failing_since.getTime(),
      Date.parse(input.observed_at),
      deps.settings.webhooks.disableAfterFailingSeconds,
    );
  if (!gone && !failing) return { endpoint_disabled: false };
  await disableEndpoint(deps, trx, subscription, gone ? 'endpoint_gone' : 'failing', input);
  return { endpoint_disabled: true };
}

/**
 * Logs an attempt with the state it leaves, and notes the result on the endpoint: a success ends
 * its run of failures; a 410, or failures for longer than the configured time, disable it. One
 * transaction, every write keyed, so a retry repeats nothing.
 */
export async function recordDeliveryAttempt(
  deps: AttemptDeps,
  input: RecordAttemptInput,
): Promise<{ endpoint_disabled: boolean }> {
  return deps.db.transaction(async (trx) => {
    await upsertDeliveryProjection(trx, input.state);
    await upsertAttempt(trx, attemptRow(input));
    // Our own failures say nothing about the endpoint.
    if (input.sent.kind !== 'sent') return { endpoint_disabled: false };
    if (input.verdict.kind === 'delivered') {
      await clearEndpointFailures(trx, input.state.subscription_id);
      return { endpoint_disabled: false };
    }
    return noteFailedAttempt(deps, trx, input);
  });
}

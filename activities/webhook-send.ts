import { ApplicationFailure } from '@temporalio/activity';
import type { Knex } from 'knex';
import { findSubscription, listLiveSecrets, type SubscriptionRow } from '../db/webhooks';
import type { WebhookEventBody } from '../domain/webhooks/rules';
import type { Logger } from '../lib/logger';
import { postJson, type PostOutcome } from '../lib/outbound/post';
import { DELIVERY_ID_HEADER, SIGNATURE_HEADER, signatureHeader } from '../lib/outbound/signature';
import { createOutboundGuard } from '../lib/outbound/url-guard';
import { createSecretBox, SecretsUnavailableError, type SecretBox } from '../lib/secret-box';
import { recordWebhookAttempt } from '../services/observability/metrics';
import { secretContext } from '../services/webhooks/subscriptions';
import { FAILURE_TYPES } from '../contracts/failures';
import type { WorkerSettings } from './settings';

/** Headers beside the signature: which kind of event, and which subscription, a receiver is looking at. */
export const EVENT_HEADER = 'X-Svc-Event';
export const SUBSCRIPTION_HEADER = 'X-Svc-Subscription-ID';

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

export interface DeliveryAttempt {
  delivery_id: string;
  subscription_id: string;
  event: WebhookEventBody;
  attempt: number;
}

/** Every live signing secret of the subscription, opened; fails for good when there is none to sign with. */
async function openSigningSecrets(db: Knex, box: SecretBox, subscriptionId: string): Promise<string[]> {
  let secrets: string[];
  try {
    secrets = (await listLiveSecrets(db, subscriptionId)).map((row) =>
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
      `Subscription ${subscriptionId} has no live signing secret`,
      FAILURE_TYPES.noSigningSecret,
    );
  return secrets;
}

function sentOutcome(result: PostOutcome): SentOutcome {
  return {
    status: result.status,
    retry_after_seconds: result.retryAfterSeconds,
    refused: result.refused,
    error: result.error,
    response_snippet: result.responseSnippet,
    duration_ms: result.durationMs,
  };
}

/** The attempt in the metrics and the log. */
function noteAnswer(logger: Logger, input: DeliveryAttempt, subscription: SubscriptionRow, result: PostOutcome): void {
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
}

/**
 * The sendDelivery activity. One attempt: the body exactly as the spec gives it, signed with every live
 * secret of the subscription (two during a rotation's overlap), POSTed through the outbound guard. The
 * receiver's answer, whatever it is, is the result; only our own failures throw.
 */
export function createSendDelivery(deps: { db: Knex; settings: WorkerSettings; logger: Logger }) {
  const { db, logger, settings } = deps;
  const box = createSecretBox(settings.webhooks.secretKeys);
  const guard = createOutboundGuard(settings.outbound.policy);

  return async function sendDelivery(input: DeliveryAttempt): Promise<SendResult> {
    const subscription = await findSubscription(db, input.subscription_id);
    if (!subscription) return { kind: 'inactive', reason: 'subscription_deleted' };
    if (subscription.status !== 'enabled') return { kind: 'inactive', reason: 'subscription_disabled' };
    const secrets = await openSigningSecrets(db, box, subscription.subscription_id);

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
    noteAnswer(logger, input, subscription, result);
    return { kind: 'sent', url: subscription.url, attempted_at, outcome: sentOutcome(result) };
  };
}

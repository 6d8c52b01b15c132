/**
 * Webhook rules: which subscription receives which event, when a failed delivery is tried again, what
 * ends a delivery, and when an endpoint has failed long enough to be disabled. Pure: the time and the
 * random number for jitter are inputs.
 */

/** A subscription to this receives every kind of event, including kinds added later. */
export const ALL_EVENTS = '*';

/** The body of every delivery, as the spec gives it; `id` is also sent as X-Svc-Delivery-ID. */
export interface WebhookEventBody {
  id: string;
  event: string;
  created_at: string;
  data: Record<string, unknown>;
}

export function subscriptionMatches(subscribedEvents: readonly string[], kind: string): boolean {
  return subscribedEvents.includes(ALL_EVENTS) || subscribedEvents.includes(kind);
}

export interface RetrySchedule {
  /** The wait before each retry: the first entry follows the first failed attempt. */
  delays_seconds: number[];
  /** Each wait is spread by ± this share of it, so endpoints that failed together do not get retried together. */
  jitter: number;
}

/** Nine attempts over about a day: 1 min, 5 min, 30 min, 1 h, 2 h, 4 h, 6 h, 10 h (23 h 36 min before jitter). */
export const DEFAULT_RETRY_SCHEDULE: RetrySchedule = {
  delays_seconds: [60, 300, 1800, 3600, 7200, 14_400, 21_600, 36_000],
  jitter: 0.2,
};

/** What one attempt to POST a delivery came to, as far as the rules need to know. */
export interface AttemptOutcome {
  /** The receiver's status, when it answered. */
  status?: number | undefined;
  /** Seconds the receiver asked us to wait (Retry-After). */
  retry_after_seconds?: number | undefined;
  /** The outbound policy refused the destination (private or loopback address, bad URL). */
  refused?: boolean | undefined;
}

export type GiveUpReason = 'endpoint_gone' | 'destination_refused' | 'retries_exhausted';

export type AttemptVerdict =
  { kind: 'delivered' } | { kind: 'retry'; delay_seconds: number } | { kind: 'give_up'; reason: GiveUpReason };

export function isDelivered(outcome: AttemptOutcome): boolean {
  return outcome.status !== undefined && outcome.status >= 200 && outcome.status < 300;
}

/** The longest Retry-After honoured, so that a receiver cannot park a delivery for ever. */
export const MAX_RETRY_AFTER_SECONDS = 24 * 60 * 60;

/**
 * The wait before the next attempt after `attemptsMade` attempts, or undefined when the schedule is
 * spent. `random` is in [0, 1). A Retry-After from the receiver means "not before": the wait is at least
 * what it asked (up to a day), never shorter than the schedule's.
 */
export function retryDelaySeconds(
  schedule: RetrySchedule,
  attemptsMade: number,
  random: number,
  retryAfterSeconds?: number,
): number | undefined {
  const base = schedule.delays_seconds[attemptsMade - 1];
  if (base === undefined) return undefined;
  const jittered = base * (1 + schedule.jitter * (2 * random - 1));
  const asked = retryAfterSeconds === undefined ? 0 : Math.min(retryAfterSeconds, MAX_RETRY_AFTER_SECONDS);
  return Math.max(1, Math.round(Math.max(jittered, asked)));
}

/**
 * 2xx delivers. 410 Gone ends the delivery and disables the endpoint (the receiver says it is gone for
 * good). A destination the outbound policy refuses is not retried: waiting does not make it allowed.
 * Everything else (other statuses, timeouts, connection errors) is retried on the schedule.
 */
export function judgeAttempt(
  outcome: AttemptOutcome,
  attemptsMade: number,
  schedule: RetrySchedule,
  random: number,
): AttemptVerdict {
  if (isDelivered(outcome)) return { kind: 'delivered' };
  if (outcome.status === 410) return { kind: 'give_up', reason: 'endpoint_gone' };
  if (outcome.refused) return { kind: 'give_up', reason: 'destination_refused' };
  const delay = retryDelaySeconds(schedule, attemptsMade, random, outcome.retry_after_seconds);
  return delay === undefined
    ? { kind: 'give_up', reason: 'retries_exhausted' }
    : { kind: 'retry', delay_seconds: delay };
}

export const DELIVERY_STATUSES = ['pending', 'retrying', 'succeeded', 'failed', 'cancelled'] as const;
/**
 * pending    the first attempt has not answered yet
 * retrying   an attempt failed; the next one is scheduled (next_attempt_at)
 * succeeded  the receiver answered 2xx
 * failed     given up: endpoint gone (410), destination refused, retries exhausted, endpoint disabled, or not storable
 * cancelled  the subscription was disabled or deleted before the delivery could be made
 */
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

/** invalid_data and storage_failed: the attempt was made, but what it came to could not be stored. */
export type DeliveryFailureReason =
  | GiveUpReason
  | 'endpoint_disabled'
  | 'subscription_disabled'
  | 'subscription_deleted'
  | 'invalid_data'
  | 'storage_failed';

export type EndpointDisableReason = 'endpoint_gone' | 'failing';

/**
 * Whether an endpoint whose attempts have all failed since `failingSince` has failed long enough to be
 * disabled (a 410 disables at once; see judgeAttempt). Times are epoch milliseconds.
 */
export function failingTooLong(failingSinceMs: number, attemptedAtMs: number, disableAfterSeconds: number): boolean {
  return attemptedAtMs - failingSinceMs >= disableAfterSeconds * 1000;
}

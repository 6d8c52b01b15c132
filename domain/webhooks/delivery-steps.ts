/**
 * What one attempt of a webhook delivery comes to: the verdict when our own side failed before anything
 * was sent, and what the verdict sets on the delivery. The delivery workflow only says what happened.
 */
import {
  retryDelaySeconds,
  type AttemptVerdict,
  type DeliveryFailureReason,
  type DeliveryStatus,
  type RetrySchedule,
} from './rules';

/** The fields an attempt sets on a delivery. */
export interface DeliveryAttemptChanges {
  attempts: number;
  status: DeliveryStatus;
  last_status_code: number | undefined;
  last_error: string | undefined;
  next_attempt_at: string | undefined;
  failure_reason?: DeliveryFailureReason;
  completed_at?: string;
}

/** Our own failure (no key to open the secret, a lost worker) is retried on the receiver's schedule. */
export function verdictOnOwnFailure(schedule: RetrySchedule, attemptsMade: number, random: number): AttemptVerdict {
  const delay = retryDelaySeconds(schedule, attemptsMade, random);
  return delay === undefined
    ? { kind: 'give_up', reason: 'retries_exhausted' }
    : { kind: 'retry', delay_seconds: delay };
}

/** What an attempt leaves on its delivery: retrying until the next attempt, or finished one way or the other. */
export function attemptChanges(
  attempt: number,
  answer: { status?: number | undefined; error?: string | undefined },
  verdict: AttemptVerdict,
  at: { observed_at: string; next_attempt_at?: string | undefined },
): DeliveryAttemptChanges {
  const seen = { attempts: attempt, last_status_code: answer.status, last_error: answer.error };
  if (verdict.kind === 'retry') return { ...seen, status: 'retrying', next_attempt_at: at.next_attempt_at };
  if (verdict.kind === 'delivered')
    return { ...seen, status: 'succeeded', next_attempt_at: undefined, completed_at: at.observed_at };
  return {
    ...seen,
    status: 'failed',
    failure_reason: verdict.reason,
    next_attempt_at: undefined,
    completed_at: at.observed_at,
  };
}

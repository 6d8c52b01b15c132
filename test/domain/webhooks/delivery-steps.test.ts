import { attemptChanges, verdictOnOwnFailure } from '../../../domain/webhooks/delivery-steps';
import type { AttemptVerdict, RetrySchedule } from '../../../domain/webhooks/rules';

const schedule: RetrySchedule = { delays_seconds: [60, 300], jitter: 0 };
const AT = { observed_at: '2026-11-23T10:00:00.000Z', next_attempt_at: '2026-11-23T10:01:00.000Z' };

describe('what a delivery attempt comes to', () => {
  it.each([
    ['retries our own first failure on the schedule', 1, { kind: 'retry', delay_seconds: 60 }],
    ['retries our own second failure on the schedule', 2, { kind: 'retry', delay_seconds: 300 }],
    ['gives up once the schedule is spent', 3, { kind: 'give_up', reason: 'retries_exhausted' }],
  ])('%s', (_behaviour, attemptsMade, verdict) => {
    expect(verdictOnOwnFailure(schedule, attemptsMade, 0.5)).toEqual(verdict);
  });

  it.each<[string, AttemptVerdict, object]>([
    [
      'waits for the next attempt when retrying',
      { kind: 'retry', delay_seconds: 60 },
      { status: 'retrying', next_attempt_at: AT.next_attempt_at },
    ],
    [
      'completes when delivered',
      { kind: 'delivered' },
      { status: 'succeeded', next_attempt_at: undefined, completed_at: AT.observed_at },
    ],
    [
      'fails with the reason when given up',
      { kind: 'give_up', reason: 'endpoint_gone' },
      { status: 'failed', failure_reason: 'endpoint_gone', next_attempt_at: undefined, completed_at: AT.observed_at },
    ],
  ])('%s, keeping what the receiver answered', (_behaviour, verdict, expected) => {
    expect(attemptChanges(2, { status: 503, error: 'busy' }, verdict, AT)).toEqual({
      attempts: 2,
      last_status_code: 503,
      last_error: 'busy',
      ...expected,
    });
  });
});

import { EVENT_EMITTERS, EVENT_KINDS } from '../../../domain/provenance/events';
import {
  DEFAULT_RETRY_SCHEDULE,
  failingTooLong,
  judgeAttempt,
  retryDelaySeconds,
  subscriptionMatches,
  type RetrySchedule,
} from '../../../domain/webhooks/rules';

const noJitter: RetrySchedule = { delays_seconds: [60, 300, 1800], jitter: 0 };

describe('subscriptionMatches', () => {
  it.each([
    [['routing.decided'], 'routing.decided', true],
    [['routing.decided', 'audit.critical'], 'audit.critical', true],
    [['routing.decided'], 'routing.escalated', false],
    [['*'], 'webhook.endpoint_disabled', true],
    [[], 'routing.decided', false],
  ])('%j receives %s: %s', (events, kind, expected) => {
    expect(subscriptionMatches(events, kind)).toBe(expected);
  });
});

describe('judgeAttempt', () => {
  it.each([
    ['delivers on 200', { status: 200 }, 1, { kind: 'delivered' }],
    ['delivers on 204', { status: 204 }, 3, { kind: 'delivered' }],
    ['gives up at once on 410 Gone', { status: 410 }, 1, { kind: 'give_up', reason: 'endpoint_gone' }],
    ['gives up on a refused destination', { refused: true }, 1, { kind: 'give_up', reason: 'destination_refused' }],
    ['retries a 500 after the first wait', { status: 500 }, 1, { kind: 'retry', delay_seconds: 60 }],
    ['retries a timeout (no status) after the second wait', {}, 2, { kind: 'retry', delay_seconds: 300 }],
    ['retries a 404 (the receiver may be mid-deploy)', { status: 404 }, 3, { kind: 'retry', delay_seconds: 1800 }],
    ['retries a 301 (redirects are not followed)', { status: 301 }, 1, { kind: 'retry', delay_seconds: 60 }],
    ['gives up when the schedule is spent', { status: 503 }, 4, { kind: 'give_up', reason: 'retries_exhausted' }],
    [
      'waits at least what Retry-After asks',
      { status: 429, retry_after_seconds: 120 },
      1,
      { kind: 'retry', delay_seconds: 120 },
    ],
    [
      'keeps the schedule when Retry-After asks for less',
      { status: 503, retry_after_seconds: 5 },
      2,
      { kind: 'retry', delay_seconds: 300 },
    ],
    [
      'caps Retry-After at a day',
      { status: 503, retry_after_seconds: 999_999 },
      1,
      { kind: 'retry', delay_seconds: 86_400 },
    ],
  ] as const)('%s', (_name, outcome, attemptsMade, expected) => {
    expect(judgeAttempt(outcome, attemptsMade, noJitter, 0.5)).toEqual(expected);
  });
});

describe('retryDelaySeconds', () => {
  it.each([
    [0, 48],
    [0.5, 60],
    [0.999_999, 72],
  ])('spreads a 60 s wait by ±20%% (random %s gives %s s)', (random, expected) => {
    expect(retryDelaySeconds({ delays_seconds: [60], jitter: 0.2 }, 1, random)).toBe(expected);
  });

  it('never waits less than a second', () => {
    expect(retryDelaySeconds({ delays_seconds: [1], jitter: 1 }, 1, 0)).toBe(1);
  });

  it('spreads the default schedule over about a day: nine attempts, 19 to 29 hours', () => {
    const attempts = DEFAULT_RETRY_SCHEDULE.delays_seconds.length + 1;
    const total = (random: number) =>
      DEFAULT_RETRY_SCHEDULE.delays_seconds.reduce(
        (sum, _delay, index) => sum + retryDelaySeconds(DEFAULT_RETRY_SCHEDULE, index + 1, random)!,
        0,
      );
    expect(attempts).toBe(9);
    expect(total(0.5) / 3600).toBeCloseTo(23.6, 1);
    expect(total(0) / 3600).toBeGreaterThan(18.8);
    expect(total(0.999_999) / 3600).toBeLessThan(28.4);
    expect(retryDelaySeconds(DEFAULT_RETRY_SCHEDULE, attempts, 0.5)).toBeUndefined();
  });
});

describe('failingTooLong', () => {
  const day = 24 * 60 * 60;
  it.each([
    [0, 3 * day * 1000 - 1, false],
    [0, 3 * day * 1000, true],
    [1_000, 1_000, false],
  ])('failing since %s, attempted at %s: %s', (since, at, expected) => {
    expect(failingTooLong(since, at, 3 * day)).toBe(expected);
  });
});

describe('the event catalog', () => {
  it('names the emitter of every kind, and no emitter of a kind that does not exist', () => {
    expect(Object.keys(EVENT_EMITTERS).sort()).toEqual(Object.keys(EVENT_KINDS).sort());
  });

  it('holds both lists of the spec', () => {
    const spec = [
      'routing.completed',
      'routing.escalated',
      'safety.boundary_violation',
      'audit.provenance_logged',
      'routing.decided',
      'escalation.triggered',
      'safety.violation',
      'agent.registered',
      'audit.critical',
    ];
    expect(Object.keys(EVENT_KINDS)).toEqual(expect.arrayContaining(spec));
  });
});

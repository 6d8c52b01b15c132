import { randomBytes, randomUUID } from 'node:crypto';
import { ApplicationFailure } from '@temporalio/common';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker } from '@temporalio/worker';
import {
  createWebhookActivities,
  type RecordAttemptInput,
  type SendResult,
  type SentOutcome,
} from '../../activities/webhooks';
import { DEFAULT_RETRY_SCHEDULE, type RetrySchedule } from '../../domain/webhooks/rules';
import { loadConfig } from '../../app/config';
import { workerSettings } from '../../app/deps';
import { createLogger } from '../../lib/logger';
import { createSubscription } from '../../services/webhooks/subscriptions';
import type { DeliverWebhookInput, DeliveryState } from '../../contracts/deliver-webhook';
import { deliverWebhookWorkflow } from '../../workflows/deliver-webhook';
import { createTestDatabase, type TestDatabase } from '../support/database';
import { emitEvents } from '../support/events';
import { sharedWorkflowBundle } from '../support/stack';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver';
import { DEFAULT_ORGANIZATION_ID } from '../../domain/common/organizations';

type Activities = Pick<
  ReturnType<typeof createWebhookActivities>,
  'sendDelivery' | 'projectDelivery' | 'recordDeliveryAttempt'
>;

let env: TestWorkflowEnvironment;
let projections: DeliveryState[];
let records: RecordAttemptInput[];

beforeAll(async () => {
  env = await TestWorkflowEnvironment.createTimeSkipping({
    server: { executable: { type: 'existing-path', path: process.env.HANDOFF_TEST_TEMPORAL_TEST_SERVER! } },
  });
});
afterAll(() => env?.teardown());
beforeEach(() => {
  projections = [];
  records = [];
});

function input(schedule: RetrySchedule = DEFAULT_RETRY_SCHEDULE): DeliverWebhookInput {
  const id = `evt_${randomUUID()}`;
  return {
    delivery_id: `whdel_${randomUUID()}`,
    subscription_id: 'whsub_test',
    event: {
      id,
      event: 'routing.escalated',
      created_at: '2026-11-23T10:00:00.000Z',
      data: { task_id: 'rt_1', reason: 'ai_confidence_below_threshold', assigned_human: 'did:x:ada' },
    },
    schedule,
  };
}

const sent = (outcome: Partial<SentOutcome>): SendResult => ({
  kind: 'sent',
  url: 'http://receiver.test/hook',
  attempted_at: new Date().toISOString(),
  outcome: { duration_ms: 3, ...outcome },
});

/** In-memory activities: the receiver answers as `answers` says, attempt by attempt (the last answer repeats). */
function activities(answers: Array<SendResult | Error>, options: { disableAfterAttempt?: number } = {}): Activities {
  let attempt = 0;
  return {
    async sendDelivery() {
      const answer = answers[Math.min(attempt++, answers.length - 1)]!;
      if (answer instanceof Error) throw answer;
      return answer;
    },
    async projectDelivery(state) {
      projections.push(state);
    },
    async recordDeliveryAttempt(record) {
      records.push(record);
      return {
        endpoint_disabled:
          options.disableAfterAttempt !== undefined && record.state.attempts >= options.disableAfterAttempt,
      };
    },
  };
}

async function run(args: DeliverWebhookInput, impl: Activities) {
  const taskQueue = `wf-${randomUUID()}`;
  const worker = await Worker.create({
    connection: env.nativeConnection,
    taskQueue,
    workflowBundle: await sharedWorkflowBundle(),
    activities: impl,
  });
  return worker.runUntil(async () => {
    const handle = await env.client.workflow.start(deliverWebhookWorkflow, {
      taskQueue,
      workflowId: args.delivery_id,
      args: [args],
    });
    const result = await handle.result();
    const history = await handle.fetchHistory();
    const timers = history
      .events!.filter((event) => event.timerStartedEventAttributes)
      .map((event) => Number(event.timerStartedEventAttributes!.startToFireTimeout!.seconds));
    return { result, timers };
  });
}

describe('deliverWebhookWorkflow', () => {
  it('retries a failing endpoint over about a day on durable timers with jitter, then gives up', async () => {
    const started = Date.now();
    const { result, timers } = await run(input(), activities([sent({ status: 500 })]));
    expect(result).toMatchObject({
      status: 'failed',
      failure_reason: 'retries_exhausted',
      attempts: 9,
      last_status_code: 500,
    });
    expect(timers).toHaveLength(8);
    timers.forEach((seconds, index) => {
      const base = DEFAULT_RETRY_SCHEDULE.delays_seconds[index]!;
      expect(seconds).toBeGreaterThanOrEqual(Math.floor(base * 0.8));
      expect(seconds).toBeLessThanOrEqual(Math.ceil(base * 1.2));
    });
    // Jitter spreads the waits: they are not the bare schedule.
    expect(timers).not.toEqual(DEFAULT_RETRY_SCHEDULE.delays_seconds);
    const hours = timers.reduce((sum, seconds) => sum + seconds, 0) / 3600;
    expect(hours).toBeGreaterThan(18.8);
    expect(hours).toBeLessThan(28.4);
    expect(records.map((record) => [record.state.attempts, record.state.status])).toEqual([
      [1, 'retrying'],
      [2, 'retrying'],
      [3, 'retrying'],
      [4, 'retrying'],
      [5, 'retrying'],
      [6, 'retrying'],
      [7, 'retrying'],
      [8, 'retrying'],
      [9, 'failed'],
    ]);
    // Each retry's planned time is where its timer fires.
    const firstRetry = records[0]!;
    expect(Date.parse(firstRetry.next_attempt_at!) - Date.parse(firstRetry.observed_at)).toBe(timers[0]! * 1000);
    expect(Date.now() - started).toBeLessThan(30_000);
  });

  it('honours Retry-After: waits what the receiver asked when it is longer than the schedule', async () => {
    const { result, timers } = await run(
      input(),
      activities([
        sent({ status: 429, retry_after_seconds: 7200 }),
        sent({ status: 503, retry_after_seconds: 10 }),
        sent({ status: 200 }),
      ]),
    );
    expect(result).toMatchObject({ status: 'succeeded', attempts: 3, last_status_code: 200 });
    expect(timers[0]).toBe(7200);
    // Ten seconds is sooner than the schedule's second wait (5 min ± 20%): the schedule holds.
    expect(timers[1]).toBeGreaterThanOrEqual(240);
    expect(timers[1]).toBeLessThanOrEqual(360);
  });

  it('stops at once on 410 Gone, without a timer', async () => {
    const { result, timers } = await run(input(), activities([sent({ status: 410 })]));
    expect(result).toMatchObject({ status: 'failed', failure_reason: 'endpoint_gone', attempts: 1 });
    expect(timers).toEqual([]);
    expect(records[0]!.verdict).toEqual({ kind: 'give_up', reason: 'endpoint_gone' });
  });

  it('delivers after the receiver recovers, and projects each state in version order', async () => {
    const { result, timers } = await run(
      input({ delays_seconds: [60, 300], jitter: 0 }),
      activities([sent({ status: 502 }), sent({ error: 'socket hang up' }), sent({ status: 200 })]),
    );
    expect(result).toMatchObject({ status: 'succeeded', attempts: 3 });
    expect(timers).toEqual([60, 300]);
    expect(projections.map((state) => [state.version, state.status])).toEqual([[1, 'pending']]);
    expect(
      records.map((record) => [record.state.version, record.state.status, record.state.last_error ?? null]),
    ).toEqual([
      [2, 'retrying', null],
      [3, 'retrying', 'socket hang up'],
      [4, 'succeeded', null],
    ]);
  });

  it('is cancelled when the subscription was disabled or deleted before an attempt', async () => {
    const { result } = await run(
      input(),
      activities([sent({ status: 500 }), { kind: 'inactive', reason: 'subscription_deleted' }]),
    );
    expect(result).toMatchObject({ status: 'cancelled', failure_reason: 'subscription_deleted', attempts: 1 });
    expect(projections.at(-1)).toMatchObject({ status: 'cancelled', completed_at: expect.any(String) });
  });

  it('stops retrying when its failures got the endpoint disabled', async () => {
    const { result, timers } = await run(input(), activities([sent({ status: 500 })], { disableAfterAttempt: 3 }));
    expect(result).toMatchObject({ status: 'failed', failure_reason: 'endpoint_disabled', attempts: 3 });
    expect(timers).toHaveLength(2);
  });

  it('counts our own failure (the activity gave up) as an attempt and retries it on the schedule', async () => {
    const { result, timers } = await run(
      input({ delays_seconds: [30], jitter: 0 }),
      activities([
        ApplicationFailure.nonRetryable('SECRETS_ENCRYPTION_KEY is not configured', 'secrets_unavailable'),
        sent({ status: 200 }),
      ]),
    );
    expect(result).toMatchObject({ status: 'succeeded', attempts: 2 });
    expect(timers).toEqual([30]);
    expect(records[0]!.sent).toEqual({ kind: 'error', error: 'SECRETS_ENCRYPTION_KEY is not configured' });
  });
});

describe('deliverWebhookWorkflow with its real activities, Postgres and a receiver that never recovers', () => {
  let database: TestDatabase;
  let receiver: WebhookReceiver;

  beforeAll(async () => {
    database = await createTestDatabase();
    receiver = await startWebhookReceiver();
  });
  afterAll(async () => {
    await receiver?.close();
    await database?.destroy();
  });

  it('disables the endpoint once every attempt has failed for the configured time, and says so with an event', async () => {
    const SIX_HOURS = 6 * 60 * 60;
    const config = loadConfig({
      OUTBOUND_PRIVATE_ALLOWLIST: '127.0.0.1',
      SECRETS_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
      WEBHOOK_DISABLE_AFTER_FAILING_SECONDS: String(SIX_HOURS),
    });
    const settings = workerSettings(config);
    const created = await createSubscription(
      { db: database.db, settings: settings.webhooks },
      {
        principal_id: 'test',
        organization_id: DEFAULT_ORGANIZATION_ID,
        url: receiver.url('/never'),
        events: ['audit.critical'],
      },
    );
    if (!created.ok || !created.secret) throw new Error(`subscription not created: ${JSON.stringify(created)}`);
    const subscriptionId = created.subscription.subscription_id;
    receiver.knowSecret('/never', created.secret);
    receiver.respond('/never', () => ({ status: 503, body: 'still down' }));
    const [eventId] = await emitEvents(database.db, [{ event: 'audit.critical', data: { reason: 'test' } }]);
    const event = await database.db('outbox_events').where({ event_id: eventId }).first();

    const taskQueue = `wf-${randomUUID()}`;
    const activities = createWebhookActivities({
      db: database.db,
      settings,
      logger: createLogger({ level: 'error', silent: true }),
      temporal: env.client,
    });
    const worker = await Worker.create({
      connection: env.nativeConnection,
      taskQueue,
      workflowBundle: await sharedWorkflowBundle(),
      activities,
    });
    const deliveryId = `whdel_${randomUUID()}`;
    const result = await worker.runUntil(
      env.client.workflow.execute(deliverWebhookWorkflow, {
        taskQueue,
        workflowId: deliveryId,
        args: [
          {
            delivery_id: deliveryId,
            subscription_id: subscriptionId,
            event: {
              id: eventId!,
              event: 'audit.critical',
              created_at: event.created_at.toISOString(),
              data: event.data,
            },
            schedule: DEFAULT_RETRY_SCHEDULE,
          },
        ],
      }),
    );

    // With ±20% jitter the sixth wait ends between 6.1 and 9.1 hours after the first failure, the fifth before 4.4.
    expect(result).toMatchObject({
      status: 'failed',
      failure_reason: 'endpoint_disabled',
      attempts: 7,
      last_status_code: 503,
    });
    expect(receiver.on('/never').map((delivery) => [delivery.headers['x-svc-delivery-id'], delivery.verified])).toEqual(
      Array(7).fill([eventId, true]),
    );
    const subscription = await database.db('webhook_subscriptions').where({ subscription_id: subscriptionId }).first();
    expect(subscription).toMatchObject({ status: 'disabled', disabled_reason: 'failing' });
    expect(subscription.disabled_at.getTime() - subscription.failing_since.getTime()).toBeGreaterThanOrEqual(
      SIX_HOURS * 1000,
    );
    const attempts = await database
      .db('webhook_delivery_attempts')
      .where({ delivery_id: deliveryId })
      .orderBy('attempt');
    expect(
      attempts.map((attempt) => [attempt.attempt, attempt.status_code, attempt.outcome, attempt.response_snippet]),
    ).toEqual([1, 2, 3, 4, 5, 6, 7].map((n) => [n, 503, 'failed', 'still down']));
    const notices = await database.db('outbox_events').where({ event: 'webhook.endpoint_disabled' });
    expect(notices).toEqual([
      expect.objectContaining({
        data: expect.objectContaining({
          subscription_id: subscriptionId,
          reason: 'failing',
          delivery_id: deliveryId,
          last_status_code: 503,
        }),
      }),
    ]);
  });
});

import { randomUUID } from 'node:crypto';
import { Context } from '@temporalio/activity';
import { MockActivityEnvironment, TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker } from '@temporalio/worker';
import { createWebhookActivities, type DispatchResult } from '../../activities/webhooks';
import { loadConfig } from '../../app/config';
import { workerSettings } from '../../app/deps';
import { startOutboxDispatch } from '../../app/outbox-dispatch';
import { createLogger } from '../../lib/logger';
import { outboxDispatcherId, wakeSignal } from '../../contracts/dispatch-outbox';
import { DATABASE_ACTIVITY_RETRY } from '../../contracts/failures';
import { dispatchOutboxWorkflow, PASSES_PER_RUN } from '../../workflows/dispatch-outbox';
import { createTestDatabase } from '../support/database';
import { sharedWorkflowBundle } from '../support/stack';

type Activities = Pick<ReturnType<typeof createWebhookActivities>, 'dispatchOutboxBatch'>;

let env: TestWorkflowEnvironment;

const timeSkippingServer = () =>
  TestWorkflowEnvironment.createTimeSkipping({
    server: { executable: { type: 'existing-path', path: process.env.HANDOFF_TEST_TEMPORAL_TEST_SERVER! } },
  });

beforeAll(async () => {
  env = await timeSkippingServer();
});
afterAll(() => env?.teardown());

async function waitUntil(done: () => boolean, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!done()) {
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('dispatchOutboxWorkflow', () => {
  it('passes at once on a wake signal instead of waiting for its poll, and again at once while batches come full', async () => {
    const results: DispatchResult[] = [
      { events: 0, deliveries: 0, more: false, poll_interval_ms: 3_600_000 },
      { events: 100, deliveries: 300, more: true, poll_interval_ms: 3_600_000 },
      { events: 7, deliveries: 21, more: false, poll_interval_ms: 3_600_000 },
    ];
    let passes = 0;
    const activities: Activities = {
      async dispatchOutboxBatch() {
        return results[Math.min(passes++, results.length - 1)]!;
      },
    };
    const taskQueue = `wf-${randomUUID()}`;
    const worker = await Worker.create({
      connection: env.nativeConnection,
      taskQueue,
      workflowBundle: await sharedWorkflowBundle(),
      activities,
    });
    await worker.runUntil(async () => {
      const handle = await env.client.workflow.start(dispatchOutboxWorkflow, {
        taskQueue,
        workflowId: `dispatcher-${randomUUID()}`,
      });
      await waitUntil(() => passes === 1);
      // The poll is an hour away; only the signal can bring the next pass.
      await handle.signal(wakeSignal);
      await waitUntil(() => passes === 3);
      // The third pass has run; its completion reaches the history a moment later.
      let history = await handle.fetchHistory();
      while (history.events!.filter((event) => event.activityTaskCompletedEventAttributes).length < 3) {
        await new Promise((resolve) => setTimeout(resolve, 50));
        history = await handle.fetchHistory();
      }
      expect(history.events!.filter((event) => event.timerFiredEventAttributes)).toHaveLength(0);
      expect(history.events!.filter((event) => event.activityTaskCompletedEventAttributes)).toHaveLength(3);
      await handle.terminate('test done');
    });
  });

  it('retries a failing pass at most 5 s apart, gives it up after its bounded retries, and goes on with the next pass', async () => {
    // The tests here that skip time do on a server of their own: on the one the test before it used, time skipping
    // was at times left locked, and the retries' hour was waited out in real time (up to 3 minutes instead of 1 s).
    const own = await timeSkippingServer();
    let calls = 0;
    const scheduledAt: number[] = [];
    const activities: Activities = {
      async dispatchOutboxBatch() {
        calls += 1;
        scheduledAt.push(Context.current().info.currentAttemptScheduledTimestampMs);
        if (calls <= DATABASE_ACTIVITY_RETRY.maximumAttempts!) throw new Error('the database is away');
        return { events: 0, deliveries: 0, more: false, poll_interval_ms: 3_600_000 };
      },
    };
    const taskQueue = `wf-${randomUUID()}`;
    const worker = await Worker.create({
      connection: own.nativeConnection,
      taskQueue,
      workflowBundle: await sharedWorkflowBundle(),
      activities,
    });
    try {
      await worker.runUntil(async () => {
        const handle = await own.client.workflow.start(dispatchOutboxWorkflow, {
          taskQueue,
          workflowId: `dispatcher-${randomUUID()}`,
        });
        // The retries back off to 5 s (the sweep resumes soon after an outage) and give up after some minutes; the
        // next pass follows.
        await own.sleep('90 minutes');
        await waitUntil(() => calls > DATABASE_ACTIVITY_RETRY.maximumAttempts!);
        const gaps = scheduledAt.slice(1, DATABASE_ACTIVITY_RETRY.maximumAttempts).map((at, i) => at - scheduledAt[i]!);
        expect(Math.max(...gaps)).toBeLessThanOrEqual(6_000);
        const history = await handle.fetchHistory();
        expect(history.events!.filter((event) => event.activityTaskFailedEventAttributes)).toHaveLength(1);
        expect((await handle.describe()).status.name).toBe('RUNNING');
        await handle.terminate('test done');
      });
    } finally {
      await own.teardown();
    }
  }, 180_000);

  it('retries a pass whose worker died (it stopped heartbeating) within seconds, not after its start-to-close timeout', async () => {
    const own = await timeSkippingServer();
    const attempts: number[] = [];
    let releaseLost = () => {};
    const activities: Activities = {
      async dispatchOutboxBatch() {
        const { attempt } = Context.current().info;
        attempts.push(attempt);
        // The first attempt's worker is gone: it never heartbeats nor answers.
        if (attempt === 1) await new Promise<void>((resolve) => (releaseLost = resolve));
        return { events: 0, deliveries: 0, more: false, poll_interval_ms: 3_600_000 };
      },
    };
    const taskQueue = `wf-${randomUUID()}`;
    const worker = await Worker.create({
      connection: own.nativeConnection,
      taskQueue,
      workflowBundle: await sharedWorkflowBundle(),
      activities,
    });
    try {
      await worker.runUntil(async () => {
        const handle = await own.client.workflow.start(dispatchOutboxWorkflow, {
          taskQueue,
          workflowId: `dispatcher-${randomUUID()}`,
        });
        await waitUntil(() => attempts.length === 1);
        // Half a minute: past the heartbeat timeout, well within the two minutes of start-to-close.
        await own.sleep('30 seconds');
        await waitUntil(() => attempts.length === 2);
        expect(attempts).toEqual([1, 2]);
        releaseLost();
        await handle.terminate('test done');
      });
    } finally {
      releaseLost();
      await own.teardown();
    }
  }, 120_000);

  it(`continues as new after ${PASSES_PER_RUN} passes, so its history stays short`, async () => {
    let passes = 0;
    const activities: Activities = {
      async dispatchOutboxBatch() {
        passes += 1;
        return { events: 0, deliveries: 0, more: true, poll_interval_ms: 1000 };
      },
    };
    const taskQueue = `wf-${randomUUID()}`;
    const worker = await Worker.create({
      connection: env.nativeConnection,
      taskQueue,
      workflowBundle: await sharedWorkflowBundle(),
      activities,
    });
    await worker.runUntil(async () => {
      const handle = await env.client.workflow.start(dispatchOutboxWorkflow, {
        taskQueue,
        workflowId: `dispatcher-${randomUUID()}`,
      });
      await waitUntil(() => passes > PASSES_PER_RUN, 120_000);
      const first = await env.client.workflow.getHandle(handle.workflowId, handle.firstExecutionRunId).fetchHistory();
      expect(first.events!.at(-1)!.workflowExecutionContinuedAsNewEventAttributes).toBeTruthy();
      expect(first.events!.filter((event) => event.activityTaskCompletedEventAttributes)).toHaveLength(PASSES_PER_RUN);
      await handle.terminate('test done');
    });
  }, 180_000);
});

describe('startOutboxDispatch', () => {
  it('starts the dispatcher with its first wake-up and spaces later wake-ups at least the wake interval apart', async () => {
    let passes = 0;
    const activities: Activities = {
      async dispatchOutboxBatch() {
        passes += 1;
        return { events: 0, deliveries: 0, more: false, poll_interval_ms: 3_600_000 };
      },
    };
    const taskQueue = `wf-${randomUUID()}`;
    const minWakeIntervalMs = 400;
    const worker = await Worker.create({
      connection: env.nativeConnection,
      taskQueue,
      workflowBundle: await sharedWorkflowBundle(),
      activities,
    });
    await worker.runUntil(async () => {
      // No database URL: nothing listens, so only these calls wake the dispatcher.
      const dispatch = await startOutboxDispatch({
        temporal: env.client,
        taskQueue,
        minWakeIntervalMs,
        logger: createLogger({ level: 'error', silent: true }),
      });
      try {
        await dispatch.wake();
        await dispatch.wake();
        // A burst folds into the wake-up it starts and one after it (for commits made while that one was sent).
        await Promise.all([dispatch.wake(), dispatch.wake(), dispatch.wake()]);
      } finally {
        await dispatch.stop();
      }
      const handle = env.client.workflow.getHandle(outboxDispatcherId(taskQueue));
      const history = await handle.fetchHistory();
      const signalledAt = history
        .events!.filter((event) => event.workflowExecutionSignaledEventAttributes)
        .map((event) => Number(event.eventTime!.seconds) * 1000 + event.eventTime!.nanos! / 1e6);
      // The start's own wake-up, one for each of the two calls, and two for the burst of three.
      expect(signalledAt).toHaveLength(5);
      // Server times: a signal's own trip to the server may take a little longer than the next one's.
      for (let i = 1; i < signalledAt.length; i += 1)
        expect(signalledAt[i]! - signalledAt[i - 1]!).toBeGreaterThanOrEqual(minWakeIntervalMs * 0.6);
      await waitUntil(() => passes >= 1);
      await handle.terminate('test done');
    });
  });
});

describe('the dispatcher’s pass (the activity)', () => {
  it('heartbeats while it waits, so that its worker’s death is noticed within the heartbeat timeout', async () => {
    const database = await createTestDatabase();
    const activities = createWebhookActivities({
      db: database.db,
      settings: workerSettings(loadConfig({})),
      logger: createLogger({ level: 'error', silent: true }),
      temporal: env.client,
    });
    const activityEnv = new MockActivityEnvironment();
    let heartbeats = 0;
    activityEnv.on('heartbeat', () => (heartbeats += 1));
    // The pass's sweep waits on the pending starts this transaction holds: a pass that takes a while.
    const holder = await database.db.transaction();
    let pass: Promise<DispatchResult> | undefined;
    try {
      await holder.raw('lock table workflow_starts in access exclusive mode');
      pass = activityEnv.run(activities.dispatchOutboxBatch, { task_queue: `wf-${randomUUID()}` });
      await waitUntil(() => heartbeats > 0);
      await holder.commit();
      expect(await pass).toMatchObject({ started: 0 });
    } finally {
      if (!holder.isCompleted()) await holder.rollback();
      await pass?.catch(() => undefined);
      await database.destroy();
    }
  });
});

import { randomUUID } from 'node:crypto';
import { Client, Connection } from '@temporalio/client';
import { dispatchOutboxBatch, SWEPT_LATE_AFTER_MS } from '../../activities/webhook-dispatch';
import { loadConfig } from '../../app/config';
import { workerSettings } from '../../app/deps';
import { createDb } from '../../db/connection';
import { insertSubscriptionIfAbsent } from '../../db/webhooks';
import { DEFAULT_ORGANIZATION_ID } from '../../domain/common/organizations';
import { STALE_SIGNAL_MS } from '../../services/workflow-starts/signals';
import { capturingLogger } from '../support/app';
import { createTestDatabase, type TestDatabase } from '../support/database';
import { emitEvents } from '../support/events';
import { devServerAddress } from '../support/stack';

/** The dispatcher's pass: what it tells an SRE about the signals its sweep delivered, and how long it may wait on Temporal. */

let database: TestDatabase;
let connection: Connection;
let temporal: Client;

beforeAll(async () => {
  database = await createTestDatabase();
  connection = await Connection.connect({ address: devServerAddress() });
  temporal = new Client({ connection, namespace: 'default' });
});
afterAll(async () => {
  await connection?.close();
  await database?.destroy();
});
afterEach(async () => {
  jest.restoreAllMocks();
  await database.db('workflow_signals').delete();
});

/** A pending signal committed `waitedMs` ago, for a workflow that has ended (nothing left to carry on). */
async function pendingSignal(waitedMs: number): Promise<void> {
  const { db } = database;
  await db('workflow_signals').insert({
    workflow_id: `apr_${randomUUID()}`,
    signal_name: 'ended',
    args: JSON.stringify([]),
    created_at: db.raw('now() - make_interval(secs => ?)', [waitedMs / 1000]),
  });
}

async function sweptSignalsLine() {
  const { logger, lines } = capturingLogger();
  const settings = workerSettings(loadConfig({}));
  await dispatchOutboxBatch({ db: database.db, settings, logger, temporal }, { task_queue: `wf-${randomUUID()}` });
  return lines.find((line) => line.signalled !== undefined);
}

describe('signals the sweep delivers', () => {
  it('are reported at info, with the oldest one’s wait, when the sweep took them on time', async () => {
    await pendingSignal(STALE_SIGNAL_MS + 8000);
    await pendingSignal(STALE_SIGNAL_MS + 2000);
    const line = await sweptSignalsLine();
    expect(line).toMatchObject({ level: 'info', signalled: 2, grace_ms: STALE_SIGNAL_MS });
    expect(line!.message).toMatch(/a crash, an outage or a burst of answers/);
    expect(line!.oldest_waited_ms).toBeGreaterThanOrEqual(STALE_SIGNAL_MS + 8000);
    expect(line!.oldest_waited_ms).toBeLessThan(STALE_SIGNAL_MS + 8000 + 5000);
  });

  it('are reported at warn when the oldest waited a minute past its grace and the poll: the sweep was held back', async () => {
    const lateMs = STALE_SIGNAL_MS + loadConfig({}).WEBHOOK_DISPATCH_POLL_MS + SWEPT_LATE_AFTER_MS + 5000;
    await pendingSignal(lateMs);
    await pendingSignal(STALE_SIGNAL_MS + 1000);
    const line = await sweptSignalsLine();
    expect(line).toMatchObject({ level: 'warn', signalled: 2 });
    expect(line!.oldest_waited_ms).toBeGreaterThanOrEqual(lateMs);
  });
});

describe('a pass whose calls on Temporal outlast the database’s idle-in-transaction bound', () => {
  const IDLE_IN_TRANSACTION_MS = 500;
  const slowly = <A extends unknown[], R>(call: (...args: A) => Promise<R>) => {
    return async (...args: A): Promise<R> => {
      await new Promise((resolve) => setTimeout(resolve, 3 * IDLE_IN_TRANSACTION_MS));
      return call(...args);
    };
  };

  /** The pass on a pool bounded as a worker's is, with the session's idle-in-transaction bound short. */
  async function passOnBoundedPool() {
    const db = createDb({
      connectionString: database.url,
      poolMax: 4,
      timeouts: { acquireMs: 3000, statementMs: 5000, idleInTransactionMs: IDLE_IN_TRANSACTION_MS },
    });
    const { logger } = capturingLogger();
    try {
      const settings = workerSettings(loadConfig({}));
      return await dispatchOutboxBatch({ db, settings, logger, temporal }, { task_queue: `wf-${randomUUID()}` });
    } finally {
      await db.destroy();
    }
  }

  it('keeps its outbox transaction while the delivery starts take their time, and marks the events dispatched', async () => {
    const { db } = database;
    await insertSubscriptionIfAbsent(db, {
      subscription_id: `whsub_${randomUUID()}`,
      organization_id: DEFAULT_ORGANIZATION_ID,
      url: 'http://receiver.invalid/hook',
      events: ['routing.decided'],
      description: null,
      created_by: 'test',
    });
    const [eventId] = await emitEvents(db, [{ event: 'routing.decided' }]);
    const start = temporal.workflow.start.bind(temporal.workflow);
    jest.spyOn(temporal.workflow, 'start').mockImplementation(slowly(start));
    expect(await passOnBoundedPool()).toMatchObject({ events: 1, deliveries: 1 });
    const row = await db('outbox_events').where({ event_id: eventId }).first<{ dispatched_at: Date | null }>();
    expect(row.dispatched_at).not.toBeNull();
    await db('webhook_subscriptions').delete();
  });

  it('keeps its sweep’s transaction while the signals take their time, and forgets what it delivered', async () => {
    await pendingSignal(STALE_SIGNAL_MS + 1000);
    const getHandle = temporal.workflow.getHandle.bind(temporal.workflow);
    jest.spyOn(temporal.workflow, 'getHandle').mockImplementation((workflowId) => {
      const handle = getHandle(workflowId);
      return Object.assign(handle, { signal: slowly(handle.signal.bind(handle)) });
    });
    expect(await passOnBoundedPool()).toMatchObject({ events: 0 });
    expect(await database.db('workflow_signals').count<[{ count: number }]>('* as count')).toEqual([{ count: 0 }]);
  });
});

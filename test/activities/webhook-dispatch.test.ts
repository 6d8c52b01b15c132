import { randomUUID } from 'node:crypto';
import { Client, Connection } from '@temporalio/client';
import { dispatchOutboxBatch, SWEPT_LATE_AFTER_MS } from '../../activities/webhook-dispatch';
import { loadConfig } from '../../app/config';
import { workerSettings } from '../../app/deps';
import { STALE_SIGNAL_MS } from '../../services/workflow-starts/signals';
import { capturingLogger } from '../support/app';
import { createTestDatabase, type TestDatabase } from '../support/database';
import { devServerAddress } from '../support/stack';

/** What the dispatcher's pass tells an SRE about the signals its sweep delivered. */

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
afterEach(() => database.db('workflow_signals').delete());

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

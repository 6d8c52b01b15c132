import { randomUUID } from 'node:crypto';
import { Client, Connection } from '@temporalio/client';
import { insertPendingStart, type PendingStart } from '../../../db/workflow-starts';
import { AFTER_ANSWER_CONCURRENCY, afterAnswer } from '../../../services/workflow-starts/batches';
import { deliverStaleSignals, STALE_SIGNAL_MS } from '../../../services/workflow-starts/signals';
import {
  madeStartsForgotten,
  STALE_START_MS,
  startAfterCommit,
  startStaleStarts,
} from '../../../services/workflow-starts/starts';
import { createTestDatabase, type TestDatabase } from '../../support/database';
import { devServerAddress } from '../../support/stack';

/**
 * The dispatcher's sweep of pending starts and signals and the API's after-answer queue (docs/architecture.md,
 * "Answered at commit"): each start is made once, by one of them, and a row Temporal refuses steps aside.
 */

let database: TestDatabase;
let connection: Connection;
let temporal: Client;
const taskQueue = `sweep-${randomUUID()}`;

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
  await database.db('workflow_starts').delete();
  await database.db('workflow_signals').delete();
});

const deps = () => ({ db: database.db, temporal });

function pendingStart(searchAttributes: PendingStart['search_attributes'] = []): PendingStart {
  return {
    workflow_id: `apr_${randomUUID()}`,
    workflow_type: 'approvalWorkflow',
    task_queue: taskQueue,
    args: [],
    search_attributes: searchAttributes,
  };
}

/** A start no retry makes: a search attribute the namespace does not know. */
const refusedStart = () => pendingStart([{ key: { name: 'HandoffNoSuchAttribute', type: 'KEYWORD' }, value: 'x' }]);

/** Moves a row back in time, as if it had been committed `byMs` earlier. */
async function age(table: 'workflow_starts' | 'workflow_signals', workflowId: string, byMs: number): Promise<void> {
  const { db } = database;
  const aged = await db(table)
    .where({ workflow_id: workflowId })
    .update({ created_at: db.raw('created_at - make_interval(secs => ?)', [byMs / 1000]) });
  expect(aged).toBe(1);
}

async function rowOf(table: 'workflow_starts' | 'workflow_signals', workflowId: string) {
  return database.db(table).where({ workflow_id: workflowId }).first<{ requeued_at: Date | null } | undefined>();
}

async function workflowSignals(workflowId: string): Promise<string[]> {
  const history = await temporal.workflow.getHandle(workflowId).fetchHistory();
  return history.events!.flatMap((event) =>
    event.workflowExecutionSignaledEventAttributes ? [event.workflowExecutionSignaledEventAttributes.signalName!] : [],
  );
}

/** A burst: every lane of the after-answer queue busy (running, not waiting) until `release` is called. */
async function busyLanes(): Promise<() => void> {
  let release!: () => void;
  const busy = new Promise<void>((resolve) => (release = resolve));
  for (let lane = 0; lane < AFTER_ANSWER_CONCURRENCY; lane += 1) afterAnswer.push(() => busy);
  // The queue begins them on the event loop's next turn.
  await new Promise((resolve) => setImmediate(resolve));
  return release;
}

describe('a start queued behind a burst', () => {
  it('is left to the sweep once it has waited near the sweep’s grace, and made once, by the sweep', async () => {
    const start = pendingStart();
    await insertPendingStart(database.db, start);
    const starts = jest.spyOn(temporal.workflow, 'start');
    // Every lane busy until the start has waited as long as the sweep's grace.
    const release = await busyLanes();
    startAfterCommit(deps(), start);
    const now = Date.now.bind(Date);
    jest.spyOn(Date, 'now').mockImplementation(() => now() + STALE_START_MS);
    release();
    await afterAnswer.settled(20_000);
    await madeStartsForgotten(20_000);
    jest.restoreAllMocks();
    const madeByTheQueue = starts.mock.calls.length;

    await age('workflow_starts', start.workflow_id, STALE_START_MS);
    const countedStarts = jest.spyOn(temporal.workflow, 'start');
    expect(await startStaleStarts(deps(), 10)).toMatchObject({ started: 1, refused: [] });
    expect(madeByTheQueue).toBe(0);
    expect(countedStarts.mock.calls.map(([, options]) => options.workflowId)).toEqual([start.workflow_id]);
    expect(await rowOf('workflow_starts', start.workflow_id)).toBeUndefined();
    await temporal.workflow.getHandle(start.workflow_id).terminate('test done');
  });

  it('waits behind fresher starts only: the newest is made first', async () => {
    const older = pendingStart();
    const newer = pendingStart();
    await insertPendingStart(database.db, older);
    await insertPendingStart(database.db, newer);
    const starts = jest.spyOn(temporal.workflow, 'start');
    const release = await busyLanes();
    startAfterCommit(deps(), older);
    startAfterCommit(deps(), newer);
    release();
    await afterAnswer.settled(20_000);
    await madeStartsForgotten(20_000);
    expect(starts.mock.calls.map(([, options]) => options.workflowId)).toEqual([newer.workflow_id, older.workflow_id]);
    expect(await rowOf('workflow_starts', older.workflow_id)).toBeUndefined();
    expect(await rowOf('workflow_starts', newer.workflow_id)).toBeUndefined();
    for (const { workflow_id } of [older, newer]) await temporal.workflow.getHandle(workflow_id).terminate('test done');
  });

  it('is made by the queue when its turn comes within the grace, and the sweep then finds nothing', async () => {
    const start = pendingStart();
    await insertPendingStart(database.db, start);
    startAfterCommit(deps(), start);
    await afterAnswer.settled(20_000);
    await madeStartsForgotten(20_000);
    expect(await rowOf('workflow_starts', start.workflow_id)).toBeUndefined();
    expect((await temporal.workflow.getHandle(start.workflow_id).describe()).status.name).toBe('RUNNING');
    await temporal.workflow.getHandle(start.workflow_id).terminate('test done');
  });
});

describe('a start Temporal refuses as it stands', () => {
  it('stays pending but steps aside, so the next batch takes the start behind it; it is tried again later, then later still', async () => {
    const refused = refusedStart();
    const behind = pendingStart();
    await insertPendingStart(database.db, refused);
    await insertPendingStart(database.db, behind);
    await age('workflow_starts', refused.workflow_id, 2 * STALE_START_MS);
    await age('workflow_starts', behind.workflow_id, STALE_START_MS);

    const first = await startStaleStarts(deps(), 1);
    expect(first).toMatchObject({ started: 0, refused: [{ workflow_id: refused.workflow_id }] });
    expect(first.refused[0]!.reason).toMatch(/HandoffNoSuchAttribute/);
    expect(await startStaleStarts(deps(), 1)).toMatchObject({ started: 1, refused: [] });
    expect(await startStaleStarts(deps(), 10)).toMatchObject({ started: 0, refused: [] });
    const requeued = (await rowOf('workflow_starts', refused.workflow_id))!.requeued_at!;
    expect(requeued.getTime()).toBeGreaterThan(Date.now());

    // Its turn come again (moved back instead of waited for), it is refused again and waits longer.
    await database
      .db('workflow_starts')
      .where({ workflow_id: refused.workflow_id })
      .update({
        created_at: database.db.raw("now() - interval '1 minute'"),
        requeued_at: database.db.raw("now() - interval '10 seconds'"),
      });
    expect(await startStaleStarts(deps(), 10)).toMatchObject({
      started: 0,
      refused: [{ workflow_id: refused.workflow_id }],
    });
    const later = (await rowOf('workflow_starts', refused.workflow_id))!.requeued_at!;
    expect(later.getTime() - Date.now()).toBeGreaterThan(30_000);
    await temporal.workflow.getHandle(behind.workflow_id).terminate('test done');
  });
});

describe('a stale signal', () => {
  async function pendingSignal(workflowId: string, olderByMs: number): Promise<void> {
    await database
      .db('workflow_signals')
      .insert({ workflow_id: workflowId, signal_name: 'ended', args: JSON.stringify([{ status: 'approved' }]) });
    await age('workflow_signals', workflowId, olderByMs);
  }

  it('refused (its workflow’s pending start is) does not fail the pass: the others are delivered, and it steps aside', async () => {
    const refused = refusedStart();
    await insertPendingStart(database.db, refused);
    await pendingSignal(refused.workflow_id, 2 * STALE_SIGNAL_MS);
    const running = pendingStart();
    await temporal.workflow.start(running.workflow_type, { workflowId: running.workflow_id, taskQueue, args: [] });
    await pendingSignal(running.workflow_id, STALE_SIGNAL_MS);

    const swept = await deliverStaleSignals(deps(), 10);
    expect(swept).toMatchObject({
      signalled: 1,
      refused: [{ workflow_id: refused.workflow_id, signal_name: 'ended' }],
    });
    expect(await workflowSignals(running.workflow_id)).toEqual(['ended']);
    expect(await rowOf('workflow_signals', running.workflow_id)).toBeUndefined();
    expect((await rowOf('workflow_signals', refused.workflow_id))!.requeued_at!.getTime()).toBeGreaterThan(Date.now());
    expect(await deliverStaleSignals(deps(), 10)).toMatchObject({ signalled: 0, refused: [] });
    await temporal.workflow.getHandle(running.workflow_id).terminate('test done');
  });

  it('that meets an outage of Temporal fails the pass, and stays as it was for the next', async () => {
    const workflowId = `apr_${randomUUID()}`;
    await pendingSignal(workflowId, STALE_SIGNAL_MS);
    const unavailable = Object.assign(new Error('14 UNAVAILABLE: No connection established'), {
      code: 14,
      metadata: {},
    });
    jest.spyOn(temporal.workflow, 'getHandle').mockReturnValue({
      signal: () => Promise.reject(unavailable),
    } as unknown as ReturnType<Client['workflow']['getHandle']>);
    await expect(deliverStaleSignals(deps(), 10)).rejects.toThrow(/UNAVAILABLE/);
    expect(await rowOf('workflow_signals', workflowId)).toMatchObject({ requeued_at: null });
  });
});

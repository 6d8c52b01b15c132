import { randomUUID } from 'node:crypto';
import { Client, Connection } from '@temporalio/client';
import { insertPendingStart, type PendingStart } from '../../../db/workflow-starts';
import { afterAnswer } from '../../../services/workflow-starts/batches';
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
 * "Answered at commit"): each start is made once, by one of them.
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

function pendingStart(): PendingStart {
  return {
    workflow_id: `apr_${randomUUID()}`,
    workflow_type: 'approvalWorkflow',
    task_queue: taskQueue,
    args: [],
    search_attributes: [],
  };
}

/** Moves a row back in time, as if it had been committed `byMs` earlier. */
async function age(table: 'workflow_starts' | 'workflow_signals', workflowId: string, byMs: number): Promise<void> {
  const { db } = database;
  const aged = await db(table)
    .where({ workflow_id: workflowId })
    .update({ created_at: db.raw('created_at - make_interval(secs => ?)', [byMs / 1000]) });
  expect(aged).toBe(1);
}

async function rowOf(table: 'workflow_starts' | 'workflow_signals', workflowId: string) {
  return database.db(table).where({ workflow_id: workflowId }).first<{ workflow_id: string } | undefined>();
}

describe('a start queued behind a burst', () => {
  it('is left to the sweep once it has waited near the sweep’s grace, and made once, by the sweep', async () => {
    const start = pendingStart();
    await insertPendingStart(database.db, start);
    const starts = jest.spyOn(temporal.workflow, 'start');
    // A burst: every lane of the queue busy until the start has waited as long as the sweep's grace.
    let release!: () => void;
    const busy = new Promise<void>((resolve) => (release = resolve));
    for (let lane = 0; lane < 16; lane += 1) afterAnswer.push(() => busy);
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
    expect(await startStaleStarts(deps(), 10)).toEqual({ started: 1, refused: [] });
    expect(madeByTheQueue).toBe(0);
    expect(countedStarts.mock.calls.map(([, options]) => options.workflowId)).toEqual([start.workflow_id]);
    expect(await rowOf('workflow_starts', start.workflow_id)).toBeUndefined();
    await temporal.workflow.getHandle(start.workflow_id).terminate('test done');
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

import { deletePendingSignal, deletePendingStart } from '../../db/workflow-starts';
import { createTestDatabase, type TestDatabase } from '../support/database';

let database: TestDatabase;
beforeAll(async () => {
  database = await createTestDatabase();
});
afterAll(() => database?.destroy());

describe('deleting a delivered signal or a made start', () => {
  it('skips a row the sweep holds instead of waiting for its pass, and deletes it once free', async () => {
    if (database.embedded) return;
    const { db } = database;
    const signal = { workflow_id: 'apr_held', signal_name: 'ended' };
    await db('workflow_signals').insert({ ...signal, args: JSON.stringify([]) });
    await db('workflow_starts').insert({ workflow_id: 'apr_held', workflow_type: 'approvalWorkflow', task_queue: 'q', args: JSON.stringify([]), search_attributes: JSON.stringify([]) });
    const sweep = await db.transaction();
    try {
      await sweep('workflow_signals').where(signal).forUpdate();
      await sweep('workflow_starts').where({ workflow_id: 'apr_held' }).forUpdate();
      // Were these to wait for the sweep's locks, they would never return while it holds them.
      await deletePendingSignal(db, signal);
      await deletePendingStart(db, 'apr_held');
      expect(await sweep('workflow_signals').where(signal)).toHaveLength(1);
      expect(await sweep('workflow_starts').where({ workflow_id: 'apr_held' })).toHaveLength(1);
    } finally {
      await sweep.commit();
    }
    await deletePendingSignal(db, signal);
    await deletePendingStart(db, 'apr_held');
    expect(await db('workflow_signals').where(signal)).toHaveLength(0);
    expect(await db('workflow_starts').where({ workflow_id: 'apr_held' })).toHaveLength(0);
  });
});

import { deleteDeliveredSignals, deleteMadeStarts } from '../../db/workflow-starts';
import { createTestDatabase, type TestDatabase } from '../support/database';

let database: TestDatabase;
beforeAll(async () => {
  database = await createTestDatabase();
});
afterAll(() => database?.destroy());

describe('deleting a delivered signal or a made start', () => {
  it('skips the rows the sweep holds instead of waiting for its pass, deletes the others of the batch, and the held ones once free', async () => {
    if (database.embedded) return;
    const { db } = database;
    const signal = { workflow_id: 'apr_held', signal_name: 'ended' };
    const free = { workflow_id: 'apr_free', signal_name: 'ended' };
    await db('workflow_signals').insert([signal, free].map((row) => ({ ...row, args: JSON.stringify([]) })));
    await db('workflow_starts').insert(
      ['apr_held', 'apr_free'].map((workflow_id) => ({
        workflow_id,
        workflow_type: 'approvalWorkflow',
        task_queue: 'q',
        args: JSON.stringify([]),
        search_attributes: JSON.stringify([]),
      })),
    );
    const sweep = await db.transaction();
    try {
      await sweep('workflow_signals').where(signal).forUpdate();
      await sweep('workflow_starts').where({ workflow_id: 'apr_held' }).forUpdate();
      // Were these to wait for the sweep's locks, they would never return while it holds them.
      await deleteDeliveredSignals(db, [signal, free]);
      await deleteMadeStarts(db, ['apr_held', 'apr_free']);
      expect(await sweep('workflow_signals').select('workflow_id')).toEqual([{ workflow_id: 'apr_held' }]);
      expect(await sweep('workflow_starts').select('workflow_id')).toEqual([{ workflow_id: 'apr_held' }]);
    } finally {
      await sweep.commit();
    }
    await deleteDeliveredSignals(db, [signal]);
    await deleteMadeStarts(db, ['apr_held']);
    expect(await db('workflow_signals').where(signal)).toHaveLength(0);
    expect(await db('workflow_starts').where({ workflow_id: 'apr_held' })).toHaveLength(0);
  });
});

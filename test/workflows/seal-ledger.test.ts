import { randomUUID } from 'node:crypto';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker } from '@temporalio/worker';
import type { createLedgerActivities, DueBlock } from '../../activities/ledger';
import { DATABASE_ACTIVITY_RETRY } from '../../contracts/failures';
import { sealerSettingsSignal, sealerStatusQuery, type LedgerSealerSettings } from '../../contracts/seal-ledger';
import { sealLedgerWorkflow } from '../../workflows/seal-ledger';
import { sharedWorkflowBundle } from '../support/stack';

type Activities = ReturnType<typeof createLedgerActivities>;

const settings: LedgerSealerSettings = {
  max_block_leaves: 10,
  max_block_age_ms: 1000,
  poll_interval_ms: 50,
  idle_return_ms: 60_000,
  close_lock_timeout_ms: 100,
  seal_timeout_ms: 60_000,
  cycles_before_continue_as_new: 4,
};

let env: TestWorkflowEnvironment;
beforeAll(async () => {
  env = await TestWorkflowEnvironment.createTimeSkipping({
    server: { executable: { type: 'existing-path', path: process.env.HANDOFF_TEST_TEMPORAL_TEST_SERVER! } },
  });
});
afterAll(() => env?.teardown());

/** In-memory activities answering from a script: the test is about what the workflow does with the answers. */
function scripted(dues: DueBlock[], closeOutcomes: Record<number, { ok: false; last_closed_block: number }> = {}) {
  const calls: Array<[string, unknown]> = [];
  const activities: Pick<Activities, 'awaitDueBlock' | 'closeLedgerBlock' | 'sealLedgerBlocks'> = {
    async awaitDueBlock(given) {
      calls.push(['await', given.max_block_leaves]);
      const next = dues.shift();
      if (next) return next;
      await new Promise((resolve) => setTimeout(resolve, 20));
      return { kind: 'idle' };
    },
    async closeLedgerBlock({ block_number }) {
      calls.push(['close', block_number]);
      const outcome = closeOutcomes[block_number];
      return outcome ? { ...outcome, code: 'out_of_order' as const } : { ok: true as const, block_number };
    },
    async sealLedgerBlocks(through) {
      calls.push(['seal', through]);
      return {
        count: 1,
        last: {
          block_number: through,
          tree_size: through * 10,
          root_hash: '',
          checkpoint: '',
          sealed_at: '2026-11-23T00:00:00.000Z',
        },
      };
    },
  };
  return { calls, activities };
}

async function withWorker<T>(activities: object, run: (taskQueue: string) => Promise<T>): Promise<T> {
  const taskQueue = `sealer-${randomUUID()}`;
  const worker = await Worker.create({
    connection: env.nativeConnection,
    taskQueue,
    workflowBundle: await sharedWorkflowBundle(),
    activities,
  });
  return worker.runUntil(run(taskQueue));
}

describe('sealLedgerWorkflow', () => {
  it('gives a cycle up after its bounded retries, and goes on with the next cycle', async () => {
    const { calls, activities } = scripted([{ kind: 'seal', through_block: 2 }]);
    const attempts = DATABASE_ACTIVITY_RETRY.maximumAttempts!;
    let awaited = 0;
    // Every attempt fails but the one after the first cycle gave up; failing again afterwards keeps the
    // workflow waiting on its backoff, so that the test server can skip time.
    const failing = {
      ...activities,
      async awaitDueBlock(given: LedgerSealerSettings) {
        awaited += 1;
        if (awaited !== attempts + 1) throw new Error('the database is away');
        return activities.awaitDueBlock(given);
      },
    };
    await withWorker(failing, async (taskQueue) => {
      const handle = await env.client.workflow.start(sealLedgerWorkflow, {
        taskQueue,
        workflowId: `sealer-${randomUUID()}`,
        args: [{ settings }],
      });
      // The first cycle's retries back off to a minute and give up after about an hour.
      await env.sleep('90 minutes');
      expect(calls).toContainEqual(['seal', 2]);
      expect(await handle.query(sealerStatusQuery)).toMatchObject({ cycles: 3, last_sealed_block: 2 });
      await handle.terminate('test done');
    });
  }, 60_000);

  it('closes a block due by size or age, seals what is closed, and continues as new after its cycles', async () => {
    const { calls, activities } = scripted(
      [
        { kind: 'close', block_number: 1 },
        { kind: 'seal', through_block: 3 },
        { kind: 'idle' },
        { kind: 'close', block_number: 4 },
      ],
      { 4: { ok: false, last_closed_block: 6 } },
    );
    await withWorker(activities, async (taskQueue) => {
      const handle = await env.client.workflow.start(sealLedgerWorkflow, {
        taskQueue,
        workflowId: `sealer-${randomUUID()}`,
        args: [{ settings }],
      });
      const firstRun = env.client.workflow.getHandle(handle.workflowId, handle.firstExecutionRunId);
      for (let i = 0; i < 100 && !(await firstRun.describe()).status.name.includes('CONTINUED'); i += 1)
        await new Promise((resolve) => setTimeout(resolve, 50));
      expect((await firstRun.describe()).status.name).toBe('CONTINUED_AS_NEW');
      expect(calls.filter(([name]) => name !== 'await')).toEqual([
        ['close', 1],
        ['seal', 1],
        ['seal', 3],
        ['close', 4],
        // Someone else closed up to 6: seal what is closed rather than fail.
        ['seal', 6],
      ]);
      await handle.terminate('test over');
    });
  });

  it('applies new settings from a signal to the next cycle and reports its progress', async () => {
    const { calls, activities } = scripted([{ kind: 'close', block_number: 7 }]);
    await withWorker(activities, async (taskQueue) => {
      const handle = await env.client.workflow.start(sealLedgerWorkflow, {
        taskQueue,
        workflowId: `sealer-${randomUUID()}`,
        args: [{ settings: { ...settings, cycles_before_continue_as_new: 1000 } }],
      });
      await handle.signal(sealerSettingsSignal, {
        ...settings,
        max_block_leaves: 99,
        cycles_before_continue_as_new: 1000,
      });
      for (let i = 0; i < 100 && !calls.some(([name, value]) => name === 'await' && value === 99); i += 1)
        await new Promise((resolve) => setTimeout(resolve, 20));
      expect(calls.some(([name, value]) => name === 'await' && value === 99)).toBe(true);
      // The signal may come before the first cycle's wait or after it; either way that cycle's seal follows.
      let status = await handle.query(sealerStatusQuery);
      for (let i = 0; i < 100 && status.blocks_sealed < 1; i += 1) {
        await new Promise((resolve) => setTimeout(resolve, 20));
        status = await handle.query(sealerStatusQuery);
      }
      expect(status).toMatchObject({
        blocks_sealed: 1,
        last_sealed_block: 7,
        tree_size: 70,
        settings: { max_block_leaves: 99 },
      });
      await handle.terminate('test over');
    });
  });
});

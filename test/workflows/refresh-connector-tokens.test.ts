import type { TestWorkflowEnvironment } from '@temporalio/testing';
import type { createConnectorRefreshActivities } from '../../activities/connector-refresh';
import { refreshConnectorTokensWorkflow } from '../../workflows/refresh-connector-tokens';
import { startTimeSkipping, withWorker } from '../support/time-skipping';

let env: TestWorkflowEnvironment;
let passes: Array<{ at: number; ahead: number }>;

const activities = {
  async refreshDueTokens(ahead: number) {
    passes.push({ at: await env.currentTimeMs(), ahead });
    return { due: 0, refreshed: 0, needs_reauth: 0, failed: 0 };
  },
} satisfies ReturnType<typeof createConnectorRefreshActivities>;

beforeAll(async () => {
  env = await startTimeSkipping();
});
afterAll(() => env?.teardown());
beforeEach(() => {
  passes = [];
});

describe('refreshConnectorTokensWorkflow', () => {
  it('makes a pass every interval, with the refresh-ahead window, and continues as new after its passes', async () => {
    const started = new Set<string>();
    await withWorker(
      env,
      activities,
      async (taskQueue) => {
        const workflowId = `refresher-${taskQueue}`;
        started.add(workflowId);
        const handle = await env.client.workflow.start(refreshConnectorTokensWorkflow, {
          workflowId,
          taskQueue,
          args: [{ interval_seconds: 60, refresh_ahead_seconds: 900, passes_per_run: 3 }],
        });
        // Seven minutes of the refresher's time passes in the test server's skipped clock.
        await env.sleep(7 * 60_000 + 1000);
        const described = await handle.describe();
        expect(described.runId).not.toBe(handle.firstExecutionRunId);
        await handle.terminate('test over');
      },
      started,
    );
    expect(passes.length).toBeGreaterThanOrEqual(7);
    expect(passes.every((pass) => pass.ahead === 900)).toBe(true);
    const gaps = passes.slice(1).map((pass, index) => pass.at - passes[index]!.at);
    expect(gaps.every((gap) => gap >= 60_000)).toBe(true);
  });
});

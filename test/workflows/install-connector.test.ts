import type { TestWorkflowEnvironment } from '@temporalio/testing';
import type { createConnectorActivities } from '../../activities/connectors';
import { authorizationSignal, installWorkflowId, type InstallConnectorInput } from '../../contracts/install-connector';
import type { AuthorizationResult } from '../../domain/marketplace/oauth-callback';
import { installConnectorWorkflow } from '../../workflows/install-connector';
import { startTimeSkipping, withWorker } from '../support/time-skipping';

let env: TestWorkflowEnvironment;
let calls: Array<{ step: string; installation_id: string; detail: unknown }>;
/** How many times the exchange fails as an unanswering provider would, before it answers. */
let exchangeFailures: number;

const activities: ReturnType<typeof createConnectorActivities> = {
  async completeAuthorization(ref, result: AuthorizationResult) {
    if (exchangeFailures > 0) {
      exchangeFailures -= 1;
      throw new Error('the token endpoint answered 503');
    }
    calls.push({ step: 'complete', installation_id: ref.installation_id, detail: result });
    return result.kind === 'code' ? 'active' : 'authorization_failed';
  },
  async failInstallAttempt(ref, reason) {
    calls.push({ step: 'fail', installation_id: ref.installation_id, detail: reason });
    return 'authorization_failed';
  },
};

beforeAll(async () => {
  env = await startTimeSkipping();
});
afterAll(() => env?.teardown());
beforeEach(() => {
  calls = [];
  exchangeFailures = 0;
});

async function input(id: string, ttlMs: number): Promise<InstallConnectorInput> {
  return { installation_id: id, attempt: 1, expires_at: new Date((await env.currentTimeMs()) + ttlMs).toISOString() };
}

describe('installConnectorWorkflow', () => {
  it('ends the attempt as expired when no callback comes within its 30 minutes', async () => {
    const started = new Set<string>();
    const outcome = await withWorker(
      env,
      activities,
      async (taskQueue) => {
        const given = await input('ins_expired', 30 * 60_000);
        const workflowId = installWorkflowId(given.installation_id, 1);
        started.add(workflowId);
        return env.client.workflow.execute(installConnectorWorkflow, { workflowId, taskQueue, args: [given] });
      },
      started,
    );
    expect(outcome).toBe('authorization_failed');
    expect(calls).toEqual([{ step: 'fail', installation_id: 'ins_expired', detail: 'expired' }]);
  });

  it('exchanges the code the callback signalled, and only the first one', async () => {
    const started = new Set<string>();
    const outcome = await withWorker(
      env,
      activities,
      async (taskQueue) => {
        const given = await input('ins_code', 30 * 60_000);
        const workflowId = installWorkflowId(given.installation_id, 1);
        started.add(workflowId);
        const handle = await env.client.workflow.start(installConnectorWorkflow, {
          workflowId,
          taskQueue,
          args: [given],
        });
        await handle.signal(authorizationSignal, { kind: 'code', code: 'first' });
        await handle.signal(authorizationSignal, { kind: 'code', code: 'second' });
        return handle.result();
      },
      started,
    );
    expect(outcome).toBe('active');
    expect(calls).toEqual([{ step: 'complete', installation_id: 'ins_code', detail: { kind: 'code', code: 'first' } }]);
  });

  it('fails the attempt as exchange_failed once a provider that never answers has used up the retries', async () => {
    exchangeFailures = 100;
    const started = new Set<string>();
    const outcome = await withWorker(
      env,
      activities,
      async (taskQueue) => {
        const given = await input('ins_unanswered', 30 * 60_000);
        const workflowId = installWorkflowId(given.installation_id, 1);
        started.add(workflowId);
        const handle = await env.client.workflow.start(installConnectorWorkflow, {
          workflowId,
          taskQueue,
          args: [given],
        });
        await handle.signal(authorizationSignal, { kind: 'code', code: 'abc' });
        return handle.result();
      },
      started,
    );
    expect(outcome).toBe('authorization_failed');
    expect(calls).toEqual([{ step: 'fail', installation_id: 'ins_unanswered', detail: 'exchange_failed' }]);
  });
});

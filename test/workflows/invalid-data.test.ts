import { randomUUID } from 'node:crypto';
import { WorkflowFailedError } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { createActivities } from '../../activities';
import { FAILURE_TYPES } from '../../contracts/failures';
import { loadConfig } from '../../app/config';
import { workerSettings } from '../../app/deps';
import { createLogger } from '../../lib/logger';
import type { ApprovalRequest } from '../../contracts/approval';
import { approvalWorkflow } from '../../workflows/approval';
import { createTestDatabase, type TestDatabase } from '../support/database';
import { startTimeSkipping, withWorker } from '../support/time-skipping';

let env: TestWorkflowEnvironment;
let database: TestDatabase;

beforeAll(async () => {
  [env, database] = await Promise.all([startTimeSkipping(), createTestDatabase()]);
});
afterAll(async () => {
  await env?.teardown();
  await database?.destroy();
});

/** The activities exactly as the worker registers them, on a real database. */
const workerActivities = () =>
  createActivities({
    db: database.db,
    settings: workerSettings(loadConfig({ LOG_LEVEL: 'error' })),
    logger: createLogger({ level: 'error', silent: true }),
    temporal: env.client,
  });

async function request(extra: Partial<ApprovalRequest>): Promise<ApprovalRequest> {
  return {
    approval_id: `apr_${randomUUID()}`,
    requester_passport_id: 'did:web:acme.example:agents:payer',
    approver_passport_id: 'did:web:acme.example:people:cfo',
    action_description: 'Pay invoice 42',
    risk_level: 'high',
    risk_factors: [],
    request_data: { amount: 25_000 },
    alternatives: [],
    expires_at: new Date((await env.currentTimeMs()) + 60 * 60 * 1000).toISOString(),
    requested_by: 'sub:test',
    ...extra,
  };
}

describe('a record the ledger cannot canonicalize', () => {
  it('fails its workflow at once with a non-retryable invalid_data failure, and records nothing', async () => {
    const started = new Set<string>();
    await withWorker(
      env,
      workerActivities(),
      async (taskQueue) => {
        const args = await request({ action_description: 'Pay invoice \uD83D' });
        started.add(args.approval_id);
        const handle = await env.client.workflow.start(approvalWorkflow, { taskQueue, workflowId: args.approval_id, args: [args] });

        const failure = await handle.result().then(
          () => undefined,
          (error: unknown) => error,
        );
        expect(failure).toBeInstanceOf(WorkflowFailedError);
        const causes: unknown[] = [];
        for (let cause = (failure as Error).cause; cause; cause = (cause as Error).cause) causes.push(cause);
        expect(causes[0]).toBeInstanceOf(ApplicationFailure);
        expect(causes[0]).toMatchObject({ type: FAILURE_TYPES.invalidData, nonRetryable: true, message: expect.stringContaining('lone surrogate') });
        expect(await database.db('ledger_entries').where({ subject_id: args.approval_id }).pluck('transaction_id')).toEqual([]);
      },
      started,
    );
  });

  it('leaves a well-formed record alone: the same path with a valid surrogate pair records it', async () => {
    const started = new Set<string>();
    await withWorker(
      env,
      workerActivities(),
      async (taskQueue) => {
        const args = await request({ action_description: 'Pay invoice \uD83D\uDE00' });
        started.add(args.approval_id);
        const handle = await env.client.workflow.start(approvalWorkflow, { taskQueue, workflowId: args.approval_id, args: [args] });
        expect((await handle.result()).status).toBe('expired');
        const bodies = await database.db('ledger_entries').where({ subject_id: args.approval_id }).pluck('body');
        expect(bodies.some((body: string) => body.includes('Pay invoice \uD83D\uDE00'))).toBe(true);
      },
      started,
    );
  });
});

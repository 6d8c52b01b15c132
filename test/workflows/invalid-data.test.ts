import { randomUUID } from 'node:crypto';
import { ApplicationFailure, Context } from '@temporalio/activity';
import { WorkflowFailedError, WorkflowUpdateFailedError } from '@temporalio/client';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { createApprovalActivities } from '../../activities/approvals';
import { createComplianceActivities } from '../../activities/compliance';
import { createDagActivities } from '../../activities/dags';
import { createExecutionActivities } from '../../activities/executions';
import { createLedgerActivities } from '../../activities/ledger';
import { createWebhookActivities, type SendResult } from '../../activities/webhooks';
import {
  approvalCreatedUpdate,
  approvalQuery,
  type ApprovalRequest,
  type ApprovalState,
} from '../../contracts/approval';
import type { DeliverWebhookInput } from '../../contracts/deliver-webhook';
import { executionQuery, type ExecuteAgentInput, type ExecutionState } from '../../contracts/execute-agent';
import { FAILURE_TYPES } from '../../contracts/failures';
import { dagStartedUpdate, type RunDagInput } from '../../contracts/run-dag';
import { createDb } from '../../db/connection';
import { approvalFromRow, findApprovalById } from '../../db/approvals';
import { dagFromRow, findDagById } from '../../db/dags';
import { executionFromRow, findExecutionById } from '../../db/executions';
import { insertSubscriptionIfAbsent } from '../../db/webhooks';
import { findDelivery } from '../../db/webhook-deliveries';
import { DEFAULT_RETRY_SCHEDULE } from '../../domain/webhooks/rules';
import { loadConfig } from '../../app/config';
import { workerSettings } from '../../app/deps';
import { createLogger } from '../../lib/logger';
import { approvalWorkflow } from '../../workflows/approval';
import { deliverWebhookWorkflow } from '../../workflows/deliver-webhook';
import { executeAgentWorkflow } from '../../workflows/execute-agent';
import { runDagWorkflow } from '../../workflows/run-dag';
import { createTestDatabase, type TestDatabase } from '../support/database';
import { startTimeSkipping, withWorker as withTestWorker } from '../support/time-skipping';
import { DEFAULT_ORGANIZATION_ID } from '../../domain/common/organizations';

// What PostgreSQL cannot store: NUL in text or jsonb, a lone surrogate in jsonb.
const NUL = 'before\u0000after';
const LONE_SURROGATE = 'before\ud800after';
const NOW = '2026-11-23T10:00:00.000Z';

let env: TestWorkflowEnvironment;
let database: TestDatabase;

beforeAll(async () => {
  [env, database] = await Promise.all([startTimeSkipping(), createTestDatabase()]);
});
afterAll(async () => {
  await env?.teardown();
  await database?.destroy();
});

function deps() {
  const config = loadConfig({ SECRETS_ENCRYPTION_KEY: Buffer.alloc(32, 7).toString('base64') });
  return {
    db: database.db,
    settings: workerSettings(config),
    logger: createLogger({ level: 'error', silent: true }),
    temporal: env.client,
  };
}

function approvalRequest(extra: Partial<ApprovalRequest> = {}): ApprovalRequest {
  return {
    approval_id: `apr_${randomUUID()}`,
    requester_passport_id: 'did:web:acme.example:people:ada',
    action_description: 'Pay invoice 42',
    risk_level: 'high',
    risk_factors: [],
    request_data: { amount: 25_000 },
    alternatives: [],
    expires_at: '2099-01-01T00:00:00.000Z',
    requested_by: 'sub:test',
    ...extra,
  };
}

const approvalState = (extra: Partial<ApprovalState> = {}): ApprovalState => ({
  ...approvalRequest(),
  version: 1,
  status: 'pending',
  created_at: NOW,
  updated_at: NOW,
  ...extra,
});

function executionInput(extra: Partial<ExecuteAgentInput> = {}): ExecuteAgentInput {
  return {
    execution_id: `exe_${randomUUID()}`,
    requested_by: 'sub:test',
    agent: {
      agent_id: 'agt_1',
      agent_uri: 'agent://acme/summarizer@1.0.0',
      passport_id: 'did:web:acme.example:agents:summarizer',
      endpoint_url: 'http://agent.invalid/run',
      timeout_seconds: 30,
    },
    capability_uri: 'capability://acme/summarize',
    requester_passport_id: 'did:web:acme.example:people:ada',
    parameters: { text: 'long text' },
    risk: { level: 'low', factors: [] },
    max_attempts: 2,
    retry: { initial_interval_ms: 1000, backoff_coefficient: 2, maximum_interval_ms: 1000 },
    heartbeat_timeout_ms: 10_000,
    ...extra,
  };
}

const executionState = (extra: Partial<ExecutionState> = {}): ExecutionState => ({
  execution_id: `exe_${randomUUID()}`,
  version: 1,
  status: 'queued',
  agent_id: 'agt_1',
  agent_uri: 'agent://acme/summarizer@1.0.0',
  capability_uri: 'capability://acme/summarize',
  requester_passport_id: 'did:web:acme.example:people:ada',
  requested_by: 'sub:test',
  parameters: {},
  risk_level: 'low',
  risk_factors: [],
  progress_percent: 0,
  callback_attempts: 0,
  max_attempts: 1,
  current_attempt: 0,
  queued_at: NOW,
  updated_at: NOW,
  ...extra,
});

const provenance = (extra: Record<string, unknown> = {}) => ({
  entry: {
    subject_id: `sub_${randomUUID()}`,
    step_id: 'step',
    timestamp: NOW,
    actor: { type: 'orch_core' as const },
    action: 'tested',
    input_data: {},
    output_data: {},
    reasoning: 'a test',
    ...extra,
  },
});

const invalidData = expect.objectContaining({ type: FAILURE_TYPES.invalidData, nonRetryable: true });

describe('activities that write to Postgres', () => {
  it.each<[string, () => Promise<unknown>]>([
    [
      'recordApprovalStep, a NUL in the request',
      () =>
        createApprovalActivities(deps()).recordApprovalStep({
          provenance: provenance(),
          state: approvalState({ action_description: NUL }),
        }),
    ],
    [
      'recordExecutionStep, a lone surrogate in the parameters',
      () =>
        createExecutionActivities(deps()).recordExecutionStep({
          provenance: provenance(),
          state: executionState({ parameters: { text: LONE_SURROGATE } }),
        }),
    ],
    [
      'projectExecution, a NUL in the progress message',
      () => createExecutionActivities(deps()).projectExecution(executionState({ progress_message: NUL })),
    ],
    [
      'recordDagStep, a NUL in a node’s output',
      () =>
        createDagActivities(deps()).recordDagStep({
          state: {
            workflow_id: `wfl_${randomUUID()}`,
            version: 1,
            status: 'running',
            name: 'dag',
            requested_by: 'sub:test',
            agent_ids: [],
            nodes: [],
            edges: [],
            created_at: NOW,
            updated_at: NOW,
            error: { message: NUL },
          },
        }),
    ],
    [
      'projectDelivery, a NUL in the last error',
      () =>
        createWebhookActivities(deps()).projectDelivery({
          delivery_id: `whdel_${randomUUID()}`,
          version: 1,
          subscription_id: 'whsub_x',
          event_id: 'evt_x',
          event: 'routing.decided',
          status: 'retrying',
          attempts: 1,
          last_error: NUL,
          created_at: NOW,
          updated_at: NOW,
        }),
    ],
    [
      'projectComplianceReport, a NUL in the error',
      () =>
        createComplianceActivities(deps()).projectComplianceReport({
          report_id: `rpt_${randomUUID()}`,
          request: { period: '2026-Q4', domains: [] },
          requested_by: 'sub:test',
          created_at: NOW,
          updated_at: NOW,
          version: 1,
          status: 'failed',
          report: null,
          error: NUL,
        } as never),
    ],
    [
      'appendProvenance, a lone surrogate in an event',
      () =>
        createLedgerActivities(deps()).appendProvenance({
          ...provenance(),
          events: [{ event: 'routing.decided', data: { note: LONE_SURROGATE } }],
        }),
    ],
    [
      'appendProvenance, a record without a step',
      () => createLedgerActivities(deps()).appendProvenance(provenance({ step_id: '' })),
    ],
    [
      'appendProvenance, a number canonical JSON cannot represent',
      () => createLedgerActivities(deps()).appendProvenance(provenance({ output_data: { score: Number.NaN } })),
    ],
  ])('%s: fails for good, as invalid_data', async (_case, write) => {
    const failure = await write().then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(failure).toBeInstanceOf(ApplicationFailure);
    expect(failure).toEqual(invalidData);
  });

  it('leaves a failure that retrying can mend (the database down) retryable', async () => {
    const unreachable = createDb({ connectionString: 'postgres://postgres@127.0.0.1:1/none', poolMax: 1 });
    try {
      const failure = await createApprovalActivities({ db: unreachable })
        .recordApprovalStep({ provenance: provenance(), state: approvalState() })
        .catch((error: unknown) => error);
      expect(failure).toEqual(expect.objectContaining({ message: expect.stringContaining('ECONNREFUSED') }));
      expect(failure).not.toBeInstanceOf(ApplicationFailure);
    } finally {
      await unreachable.destroy();
    }
  });
});

describe('a workflow whose data Postgres cannot store', () => {
  // Every attempt of every activity, so a test can tell that nothing was retried.
  const attempts: string[] = [];
  let agentResult: Record<string, unknown> = {};
  let sent: SendResult;

  function activities() {
    const real = {
      ...createApprovalActivities(deps()),
      ...createExecutionActivities(deps()),
      ...createDagActivities(deps()),
      ...createWebhookActivities(deps()),
    };
    const counted = Object.fromEntries(
      Object.entries(real).map(([name, activity]) => [
        name,
        (...args: unknown[]) => {
          attempts.push(name);
          return (activity as (...a: unknown[]) => unknown)(...args);
        },
      ]),
    );
    return {
      ...counted,
      async invokeAgent() {
        attempts.push('invokeAgent');
        return { result: agentResult, attempt: Context.current().info.attempt };
      },
      async sendDelivery() {
        attempts.push('sendDelivery');
        return sent;
      },
    };
  }
  const started = new Set<string>();
  const withWorker = <T>(run: (taskQueue: string) => Promise<T>) => withTestWorker(env, activities(), run, started);

  beforeEach(() => {
    attempts.length = 0;
  });

  it('an approval requested with a NUL fails at once as invalid_data: its creator is refused, its state says failed', async () => {
    await withWorker(async (taskQueue) => {
      const args = approvalRequest({ action_description: NUL });
      started.add(args.approval_id);
      const handle = await env.client.workflow.start(approvalWorkflow, {
        taskQueue,
        workflowId: args.approval_id,
        args: [args],
      });
      const created = await handle.executeUpdate(approvalCreatedUpdate).catch((error: unknown) => error);
      expect(created).toBeInstanceOf(WorkflowUpdateFailedError);
      expect((created as WorkflowUpdateFailedError).cause).toEqual(
        expect.objectContaining({ type: FAILURE_TYPES.invalidData }),
      );
      const result = await handle.result().catch((error: unknown) => error);
      expect(result).toBeInstanceOf(WorkflowFailedError);
      expect((result as WorkflowFailedError).cause).toEqual(
        expect.objectContaining({ type: FAILURE_TYPES.invalidData }),
      );
      expect(await handle.query(approvalQuery)).toMatchObject({
        status: 'failed',
        failure: { type: FAILURE_TYPES.invalidData },
      });
      // Not retried: a second run at most, when the server turns back the workflow task that failed it
      // (the Update arrived meanwhile) and the task runs its local activity again.
      expect(attempts.filter((name) => name === 'recordApprovalStep').length).toBeLessThanOrEqual(2);
      expect(await findApprovalById(database.db, 'org_default', args.approval_id)).toBeUndefined();
    });
  }, 45_000);

  it('an execution whose agent answers with a NUL ends failed as invalid_data, and its read model says so', async () => {
    agentResult = { summary: NUL };
    await withWorker(async (taskQueue) => {
      const args = executionInput();
      started.add(args.execution_id);
      const handle = await env.client.workflow.start(executeAgentWorkflow, {
        taskQueue,
        workflowId: args.execution_id,
        args: [args],
      });
      const result = await handle.result().catch((error: unknown) => error);
      expect(result).toBeInstanceOf(WorkflowFailedError);
      expect((result as WorkflowFailedError).cause).toEqual(
        expect.objectContaining({ type: FAILURE_TYPES.invalidData }),
      );
      expect(await handle.query(executionQuery)).toMatchObject({
        status: 'failed',
        error_json: { type: FAILURE_TYPES.invalidData },
      });
      const row = await findExecutionById(database.db, args.execution_id);
      // The last state it could store, marked failed: what GET /v1/executions/{id} shows.
      expect(row && executionFromRow(row)).toMatchObject({
        status: 'failed',
        error_json: { type: FAILURE_TYPES.invalidData },
        started_at: expect.any(String),
        completed_at: expect.any(String),
      });
      expect(attempts.filter((name) => name === 'recordExecutionStep')).toHaveLength(3);
    });
  }, 45_000);

  it('a DAG whose agent node cannot store its answer fails that node and the run, instead of waiting for ever', async () => {
    agentResult = { summary: NUL };
    await withWorker(async (taskQueue) => {
      const workflow_id = `wfl_${randomUUID()}`;
      const { execution_id, requested_by: _requestedBy, parameters: _parameters, ...agent } = executionInput();
      const input: RunDagInput = {
        workflow_id,
        name: 'summarize',
        requested_by: 'sub:test',
        nodes: [
          {
            id: 'a',
            node_type: 'agent',
            node_name: 'Summarize',
            input: { text: 'x' },
            visual_metadata: {},
            agent: { ...agent, execution_id },
          },
        ],
        edges: [],
      };
      started.add(workflow_id).add(execution_id);
      const handle = await env.client.workflow.start(runDagWorkflow, {
        taskQueue,
        workflowId: workflow_id,
        args: [input],
      });
      expect(await handle.executeUpdate(dagStartedUpdate)).toMatchObject({ status: 'running' });
      expect(await handle.result()).toMatchObject({
        status: 'failed',
        nodes: [{ id: 'a', status: 'failed', error: { type: 'child_workflow_failed' } }],
      });
      const row = await findDagById(database.db, DEFAULT_ORGANIZATION_ID, workflow_id);
      expect(row && dagFromRow(row)).toMatchObject({ status: 'failed' });
    });
  }, 45_000);

  it('a webhook delivery whose receiver answers with a NUL ends failed as invalid_data, and its read model says so', async () => {
    sent = {
      kind: 'sent',
      url: 'http://receiver.invalid/hook',
      attempted_at: NOW,
      outcome: { status: 500, response_snippet: NUL, duration_ms: 3 },
    };
    await withWorker(async (taskQueue) => {
      const args: DeliverWebhookInput = {
        delivery_id: `whdel_${randomUUID()}`,
        subscription_id: `whsub_${randomUUID()}`,
        event: { id: `evt_${randomUUID()}`, event: 'routing.decided', created_at: NOW, data: {} },
        schedule: DEFAULT_RETRY_SCHEDULE,
      };
      // A delivery belongs to its subscription's organization: the subscription exists, as the outbox made it for one.
      await insertSubscriptionIfAbsent(database.db, {
        subscription_id: args.subscription_id,
        organization_id: DEFAULT_ORGANIZATION_ID,
        url: 'http://receiver.invalid/hook',
        events: ['routing.decided'],
        description: null,
        created_by: 'test',
      });
      started.add(args.delivery_id);
      const handle = await env.client.workflow.start(deliverWebhookWorkflow, {
        taskQueue,
        workflowId: args.delivery_id,
        args: [args],
      });
      const result = await handle.result().catch((error: unknown) => error);
      expect(result).toBeInstanceOf(WorkflowFailedError);
      expect((result as WorkflowFailedError).cause).toEqual(
        expect.objectContaining({ type: FAILURE_TYPES.invalidData }),
      );
      expect(
        await findDelivery(database.db, DEFAULT_ORGANIZATION_ID, args.subscription_id, args.delivery_id),
      ).toMatchObject({ status: 'failed', failure_reason: FAILURE_TYPES.invalidData });
      expect(attempts.filter((name) => name === 'sendDelivery')).toHaveLength(1);
    });
  }, 45_000);
});

describe('the read model of a failed approval', () => {
  it('keeps the failure beside the failed status', async () => {
    const state = approvalState({
      status: 'failed',
      version: 2,
      failure: { type: FAILURE_TYPES.invalidData, message: 'The data cannot be stored' },
    });
    await createApprovalActivities(deps()).projectApproval(state);
    const row = await findApprovalById(database.db, 'org_default', state.approval_id);
    expect(row && approvalFromRow(row)).toMatchObject({
      status: 'failed',
      failure: { type: FAILURE_TYPES.invalidData, message: 'The data cannot be stored' },
    });
  });
});

import { randomUUID } from 'node:crypto';
import { ApplicationFailure, CancelledFailure, Context } from '@temporalio/activity';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import type { createApprovalActivities } from '../../activities/approvals';
import type { AgentInvocation, CallbackDelivery, createExecutionActivities } from '../../activities/executions';
import { approvalQuery, respondUpdate, type ApprovalState, type ApprovalRequest } from '../../contracts/approval';
import {
  cancelExecutionUpdate,
  executionAcceptedUpdate,
  executionQuery,
  progressUpdate,
  type ExecuteAgentInput,
  type ExecutionState,
} from '../../contracts/execute-agent';
import { executeAgentWorkflow } from '../../workflows/execute-agent';
import {
  inMemoryApprovalEnding,
  inMemoryLedger,
  startTimeSkipping,
  withWorker as withTestWorker,
} from '../support/time-skipping';

type Activities = ReturnType<typeof createExecutionActivities> & ReturnType<typeof createApprovalActivities>;

let env: TestWorkflowEnvironment;
const ledger = inMemoryLedger();
const appended = ledger.appended;
let projections: ExecutionState[];
/** When each attempt ran, on the server's (skipped) clock. */
let agentAttempts: Array<{ attempt: number; startedAt: number; parameters: Record<string, unknown> }>;
let callbackAttempts: Array<{ attempt: number; startedAt: number; event: string }>;
let agentBehaviour: (call: AgentInvocation, attempt: number) => Promise<Record<string, unknown>>;
let callbackBehaviour: (delivery: CallbackDelivery, attempt: number) => Promise<void>;

const record: typeof ledger.record = (...args) => ledger.record(...args);
const approvalStates = new Map<string, ApprovalState>();

const activities: Activities = {
  async recordExecutionStep({ provenance, state }) {
    projections.push(state);
    return record(provenance);
  },
  async projectExecution(state) {
    projections.push(state);
  },
  async projectApproval() {},
  async recordApprovalStep({ provenance, state }) {
    const anchor = record(provenance);
    approvalStates.set(state.approval_id, { ...state, provenance_id: anchor.transaction_id });
    return anchor;
  },
  claimApprovalEnding: inMemoryApprovalEnding(
    (id) => approvalStates.get(id),
    (provenance) => record(provenance),
    (state) => approvalStates.set(state.approval_id, state),
  ),
  async invokeAgent(call) {
    const { attempt } = Context.current().info;
    agentAttempts.push({ attempt, startedAt: await env.currentTimeMs(), parameters: call.parameters });
    return { result: await agentBehaviour(call, attempt), attempt };
  },
  async deliverCallback(delivery) {
    const { attempt } = Context.current().info;
    callbackAttempts.push({ attempt, startedAt: await env.currentTimeMs(), event: delivery.event });
    await callbackBehaviour(delivery, attempt);
    return { attempt, status: 204 };
  },
};

const retryable = (attempt: number) =>
  ApplicationFailure.create({ type: 'agent_error', message: 'HTTP 503', details: [{ attempt, status: 503 }] });

beforeAll(async () => {
  env = await startTimeSkipping();
});
afterAll(() => env?.teardown());
beforeEach(() => {
  ledger.clear();
  projections = [];
  agentAttempts = [];
  callbackAttempts = [];
  agentBehaviour = async () => ({ summary: 'done' });
  callbackBehaviour = async () => undefined;
});

const MINUTE = 60_000;

function input(extra: Partial<ExecuteAgentInput> = {}): ExecuteAgentInput {
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
    max_attempts: 4,
    retry: { initial_interval_ms: MINUTE, backoff_coefficient: 2, maximum_interval_ms: 3 * MINUTE },
    heartbeat_timeout_ms: 10_000,
    ...extra,
  };
}

const started = new Set<string>();
const withWorker = <T>(run: (taskQueue: string) => Promise<T>) => withTestWorker(env, activities, run, started);
function start(taskQueue: string, args: ExecuteAgentInput) {
  started.add(args.execution_id);
  if (args.approval) started.add(args.approval.approval_id);
  return env.client.workflow.start(executeAgentWorkflow, { taskQueue, workflowId: args.execution_id, args: [args] });
}
async function execute(taskQueue: string, args: ExecuteAgentInput) {
  return (await start(taskQueue, args)).result();
}

const gaps = (times: number[]) => times.slice(1).map((time, i) => time - times[i]!);

describe('executeAgentWorkflow', () => {
  it('retries the agent with the execution’s backoff (1 min, 2 min, capped at 3 min) and completes on the answer', async () => {
    agentBehaviour = async (_call, attempt) => {
      if (attempt < 4) throw retryable(attempt);
      return { summary: 'short text' };
    };
    await withWorker(async (taskQueue) => {
      const args = input();
      const handle = await start(taskQueue, args);
      expect(await handle.executeUpdate(executionAcceptedUpdate)).toMatchObject({ status: 'queued', version: 1 });
      const final = await handle.result();
      expect(final).toMatchObject({
        status: 'completed',
        result_json: { summary: 'short text' },
        current_attempt: 4,
        progress_percent: 100,
      });
      expect(agentAttempts.map((a) => a.attempt)).toEqual([1, 2, 3, 4]);
      const waits = gaps(agentAttempts.map((a) => a.startedAt));
      expect(waits.map((ms) => Math.round(ms / 1000))).toEqual([60, 120, 180]);
      expect(appended.map((a) => [a.entry.step_id, a.events?.map((e) => e.event)])).toEqual([
        ['queued', ['execution.queued']],
        ['processing', ['execution.started']],
        ['completed', ['execution.completed']],
      ]);
    });
  });

  it('fails after max_attempts, keeping the last error and the attempt count', async () => {
    agentBehaviour = async (_call, attempt) => {
      throw retryable(attempt);
    };
    await withWorker(async (taskQueue) => {
      const args = input({ max_attempts: 3 });
      const handle = await start(taskQueue, args);
      const final = await handle.result();
      expect(final).toMatchObject({
        status: 'failed',
        current_attempt: 3,
        error_json: { type: 'agent_error', message: 'HTTP 503', status: 503 },
      });
      expect(agentAttempts).toHaveLength(3);
    });
  });

  it('gives up at once when the agent refuses the call', async () => {
    agentBehaviour = async (_call, attempt) => {
      throw ApplicationFailure.create({
        type: 'agent_rejected',
        message: 'HTTP 400: bad text',
        nonRetryable: true,
        details: [{ attempt, status: 400 }],
      });
    };
    await withWorker(async (taskQueue) => {
      const args = input();
      const final = await execute(taskQueue, args);
      expect(final).toMatchObject({
        status: 'failed',
        current_attempt: 1,
        error_json: { type: 'agent_rejected', status: 400 },
      });
      expect(agentAttempts).toHaveLength(1);
    });
  });

  it('takes progress from the attempt under way and refuses it from an earlier one or once finished', async () => {
    let release!: () => void;
    const answered = new Promise<void>((resolve) => (release = resolve));
    agentBehaviour = async () => {
      await answered;
      return { ok: true };
    };
    await withWorker(async (taskQueue) => {
      const args = input();
      const handle = await start(taskQueue, args);
      await handle.executeUpdate(executionAcceptedUpdate);
      while ((await handle.query(executionQuery)).status !== 'processing')
        await new Promise((resolve) => setTimeout(resolve, 20));
      const progressed = await handle.executeUpdate(progressUpdate, {
        args: [{ attempt: 2, progress_percent: 40, progress_message: 'reading' }],
      });
      expect(progressed).toMatchObject({ progress_percent: 40, progress_message: 'reading', current_attempt: 2 });
      await expect(
        handle.executeUpdate(progressUpdate, { args: [{ attempt: 1, progress_percent: 50 }] }),
      ).rejects.toMatchObject({ cause: { type: 'execution_not_processing' } });
      expect(projections.at(-1)).toMatchObject({ progress_percent: 40, progress_message: 'reading' });
      release();
      expect((await handle.result()).status).toBe('completed');
    });
  });

  it('cancels a call under way: the activity sees the cancellation, the execution records who cancelled', async () => {
    let cancelledInActivity = false;
    agentBehaviour = async () => {
      const context = Context.current();
      const beat = setInterval(() => context.heartbeat(), 200);
      try {
        await context.cancelled;
      } catch (error) {
        cancelledInActivity = error instanceof CancelledFailure;
        throw error;
      } finally {
        clearInterval(beat);
      }
      return {};
    };
    await withWorker(async (taskQueue) => {
      const args = input({ heartbeat_timeout_ms: 1000 });
      const handle = await start(taskQueue, args);
      await handle.executeUpdate(executionAcceptedUpdate);
      while (agentAttempts.length === 0) await new Promise((resolve) => setTimeout(resolve, 20));
      const cancelled = await handle.executeUpdate(cancelExecutionUpdate, {
        args: [{ cancelled_by: 'did:web:acme.example:people:ada', reason: 'no longer needed', principal: 'sub:ada' }],
      });
      expect(cancelled).toMatchObject({
        status: 'cancelled',
        cancelled_by: 'did:web:acme.example:people:ada',
        cancel_reason: 'no longer needed',
      });
      expect(cancelledInActivity).toBe(true);
      expect((await handle.result()).status).toBe('cancelled');
      expect(appended.at(-1)!.events).toEqual([expect.objectContaining({ event: 'execution.cancelled' })]);
    });
  });

  function approvalFor(args: ExecuteAgentInput, expiresInMs: number, now: number): ApprovalRequest {
    return {
      approval_id: `apr_${randomUUID()}`,
      execution_id: args.execution_id,
      requester_passport_id: args.requester_passport_id,
      action_description: 'Call summarize',
      risk_level: 'high',
      risk_factors: [],
      request_data: args.parameters,
      alternatives: [],
      expires_at: new Date(now + expiresInMs).toISOString(),
      requested_by: 'sub:test',
    };
  }

  it('waits for its approval (a child workflow), then calls the agent with the approver’s modified parameters', async () => {
    await withWorker(async (taskQueue) => {
      const base = input();
      const args = { ...base, approval: approvalFor(base, 60 * MINUTE, await env.currentTimeMs()) };
      const handle = await start(taskQueue, args);
      const accepted = await handle.executeUpdate(executionAcceptedUpdate);
      expect(accepted).toMatchObject({ status: 'queued', approval_id: args.approval.approval_id });
      // Accepted means the approval request is recorded too.
      expect(appended.map((a) => a.entry.subject_id)).toContain(args.approval.approval_id);
      const approval = env.client.workflow.getHandle(args.approval.approval_id);
      expect((await approval.query(approvalQuery)).status).toBe('pending');
      await approval.executeUpdate(respondUpdate, {
        args: [
          {
            decision: 'approved',
            response_kind: 'approved',
            responded_by: 'did:web:x:boss',
            modified_params: { text: 'shorter text' },
            principal: 'sub:boss',
          },
        ],
      });
      const final = await handle.result();
      expect(final).toMatchObject({ status: 'completed', parameters: { text: 'shorter text' } });
      expect(agentAttempts.map((a) => a.parameters)).toEqual([{ text: 'shorter text' }]);
    });
  });

  it('never calls the agent when the approval expires, and ends cancelled saying why', async () => {
    await withWorker(async (taskQueue) => {
      const base = input();
      const args = { ...base, approval: approvalFor(base, 30 * MINUTE, await env.currentTimeMs()) };
      const final = await execute(taskQueue, args);
      expect(final).toMatchObject({
        status: 'cancelled',
        error_json: { type: 'approval_expired', approval_id: args.approval.approval_id },
      });
      expect(agentAttempts).toHaveLength(0);
    });
  });

  it('cancels its approval with it when cancelled while waiting', async () => {
    await withWorker(async (taskQueue) => {
      const base = input();
      const args = { ...base, approval: approvalFor(base, 60 * MINUTE, await env.currentTimeMs()) };
      const handle = await start(taskQueue, args);
      await handle.executeUpdate(executionAcceptedUpdate);
      const cancelled = await handle.executeUpdate(cancelExecutionUpdate, {
        args: [{ cancelled_by: 'did:web:x:ada', principal: 'sub:ada' }],
      });
      expect(cancelled.status).toBe('cancelled');
      const approval = await env.client.workflow.getHandle(args.approval.approval_id).query(approvalQuery);
      expect(approval).toMatchObject({ status: 'cancelled', cancel_reason: `${args.execution_id} was cancelled` });
      expect(agentAttempts).toHaveLength(0);
    });
  });

  it('delivers the callback with its own backoff when the receiver fails twice, and records the attempts', async () => {
    callbackBehaviour = async (_delivery, attempt) => {
      if (attempt <= 2)
        throw ApplicationFailure.create({
          type: 'receiver_error',
          message: 'HTTP 500',
          details: [{ attempt, status: 500 }],
        });
    };
    await withWorker(async (taskQueue) => {
      const args = input({
        callback: {
          url: 'http://receiver.invalid/hook',
          max_attempts: 5,
          retry: { initial_interval_ms: 30_000, backoff_coefficient: 2, maximum_interval_ms: 10 * MINUTE },
          timeout_ms: 5000,
        },
      });
      const final = await execute(taskQueue, args);
      expect(final).toMatchObject({
        status: 'completed',
        callback_url: 'http://receiver.invalid/hook',
        callback_success: true,
        callback_attempts: 3,
      });
      expect(callbackAttempts.map((a) => a.event)).toEqual([
        'execution.completed',
        'execution.completed',
        'execution.completed',
      ]);
      expect(gaps(callbackAttempts.map((a) => a.startedAt)).map((ms) => Math.round(ms / 1000))).toEqual([30, 60]);
      expect(appended.map((a) => a.entry.step_id)).toEqual(['queued', 'processing', 'completed', 'callback']);
    });
  });

  it('records a callback that never got through', async () => {
    callbackBehaviour = async (_delivery, attempt) => {
      throw ApplicationFailure.create({
        type: 'receiver_error',
        message: 'HTTP 502',
        details: [{ attempt, status: 502 }],
      });
    };
    await withWorker(async (taskQueue) => {
      const args = input({
        callback: {
          url: 'http://receiver.invalid/hook',
          max_attempts: 3,
          retry: { initial_interval_ms: 1000, backoff_coefficient: 2, maximum_interval_ms: MINUTE },
          timeout_ms: 5000,
        },
      });
      const final = await execute(taskQueue, args);
      expect(final).toMatchObject({ status: 'completed', callback_success: false, callback_attempts: 3 });
      expect(appended.at(-1)!.entry).toMatchObject({ step_id: 'callback', action: 'callback_failed' });
    });
  });
});

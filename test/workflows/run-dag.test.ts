import { randomUUID } from 'node:crypto';
import { ApplicationFailure, Context } from '@temporalio/activity';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import type { createApprovalActivities } from '../../activities/approvals';
import type { createDagActivities } from '../../activities/dags';
import type { AgentInvocation, createExecutionActivities } from '../../activities/executions';
import { approvalQuery, respondUpdate, type ApprovalState } from '../../contracts/approval';
import {
  dagStartedUpdate,
  type DagEdgeSpec,
  type DagNodeSpec,
  type DagState,
  type RunDagInput,
} from '../../contracts/run-dag';
import { runDagWorkflow } from '../../workflows/run-dag';
import {
  inMemoryApprovalEnding,
  inMemoryLedger,
  startTimeSkipping,
  withWorker as withTestWorker,
} from '../support/time-skipping';

type Activities = ReturnType<typeof createExecutionActivities> &
  ReturnType<typeof createApprovalActivities> &
  ReturnType<typeof createDagActivities>;

let env: TestWorkflowEnvironment;
const ledger = inMemoryLedger();
const appended = ledger.appended;
let dagProjections: DagState[];
let calls: Array<{ execution_id: string; parameters: Record<string, unknown> }>;
let agentBehaviour: (call: AgentInvocation) => Promise<Record<string, unknown>>;

const record: typeof ledger.record = (...args) => ledger.record(...args);
const approvalStates = new Map<string, ApprovalState>();

const activities: Activities = {
  async recordExecutionStep({ provenance }) {
    return record(provenance);
  },
  async projectExecution() {},
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
  async recordDagStep({ provenance, state }) {
    dagProjections.push(state);
    return provenance ? record(provenance) : undefined;
  },
  async invokeAgent(call) {
    calls.push({ execution_id: call.execution_id, parameters: call.parameters });
    return { result: await agentBehaviour(call), attempt: Context.current().info.attempt };
  },
  async deliverCallback() {
    return { attempt: 1, status: 204 };
  },
};

beforeAll(async () => {
  env = await startTimeSkipping();
});
afterAll(() => env?.teardown());
beforeEach(() => {
  ledger.clear();
  dagProjections = [];
  calls = [];
  agentBehaviour = async (call) => ({ from: call.parameters.name ?? 'agent' });
});

const started = new Set<string>();
const withWorker = <T>(run: (taskQueue: string) => Promise<T>) => withTestWorker(env, activities, run, started);

function agentNode(workflowId: string, id: string, input: Record<string, unknown> = {}): DagNodeSpec {
  return {
    id,
    node_type: 'agent',
    node_name: `agent ${id}`,
    input: { name: id, ...input },
    visual_metadata: { x: 1 },
    agent: {
      execution_id: `exe_${workflowId}-${id}`,
      agent: {
        agent_id: 'agt_1',
        agent_uri: 'agent://acme/worker@1.0.0',
        passport_id: 'did:web:acme.example:agents:worker',
        endpoint_url: 'http://agent.invalid',
        timeout_seconds: 30,
      },
      capability_uri: 'capability://acme/work',
      requester_passport_id: 'did:web:acme.example:people:ada',
      risk: { level: 'low', factors: [] },
      max_attempts: 1,
      retry: { initial_interval_ms: 1000, backoff_coefficient: 2, maximum_interval_ms: 10_000 },
      heartbeat_timeout_ms: 10_000,
    },
  };
}

function approvalNode(workflowId: string, id: string, expiresInSeconds = 3600): DagNodeSpec {
  return {
    id,
    node_type: 'approval',
    node_name: `approval ${id}`,
    input: {},
    visual_metadata: {},
    approval: {
      approval_id: `apr_${workflowId}-${id}`,
      requester_passport_id: 'did:web:acme.example:people:ada',
      action_description: 'Go ahead?',
      risk_level: 'medium',
      risk_factors: [],
      alternatives: [],
      expires_in_seconds: expiresInSeconds,
    },
  };
}

const seq = (from: string, to: string): DagEdgeSpec => ({
  id: `${from}-${to}`,
  from_node_id: from,
  to_node_id: to,
  edge_type: 'sequence',
  metadata: {},
});
const when = (from: string, to: string, condition: string): DagEdgeSpec => ({
  id: `${from}-${to}`,
  from_node_id: from,
  to_node_id: to,
  edge_type: 'conditional',
  condition,
  metadata: {},
});

async function start(taskQueue: string, build: (workflowId: string) => Pick<RunDagInput, 'nodes' | 'edges'>) {
  const workflow_id = `wfl_${randomUUID()}`;
  const input: RunDagInput = { workflow_id, name: 'test', requested_by: 'sub:test', ...build(workflow_id) };
  started.add(workflow_id);
  for (const node of input.nodes) started.add(node.agent?.execution_id ?? node.approval?.approval_id ?? '');
  return {
    workflow_id,
    handle: await env.client.workflow.start(runDagWorkflow, { taskQueue, workflowId: workflow_id, args: [input] }),
  };
}

const node = (state: DagState, id: string) => state.nodes.find((n) => n.id === id)!;

describe('runDagWorkflow', () => {
  it('runs a diamond: the two branches in parallel, the join after both, with the branches’ outputs as its input', async () => {
    let release!: () => void;
    const bothStarted = new Promise<void>((resolve) => (release = resolve));
    agentBehaviour = async (call) => {
      const name = call.parameters.name as string;
      if (name === 'b' || name === 'c') {
        if (calls.filter((c) => ['b', 'c'].includes(c.parameters.name as string)).length === 2) release();
        await bothStarted;
      }
      return { from: name };
    };
    await withWorker(async (taskQueue) => {
      const { handle, workflow_id } = await start(taskQueue, (id) => ({
        nodes: [agentNode(id, 'a'), agentNode(id, 'b'), agentNode(id, 'c'), agentNode(id, 'd')],
        edges: [seq('a', 'b'), seq('a', 'c'), seq('b', 'd'), seq('c', 'd')],
      }));
      expect(await handle.executeUpdate(dagStartedUpdate)).toMatchObject({ status: 'running' });
      const final = await handle.result();
      expect(final.status).toBe('completed');
      expect(calls.map((c) => c.parameters.name)).toEqual(['a', expect.any(String), expect.any(String), 'd']);
      expect(calls[3]!.parameters).toEqual({ name: 'd', upstream: { b: { from: 'b' }, c: { from: 'c' } } });
      expect(final.nodes.map((n) => [n.id, n.status, n.parent_node_id, n.execution_id])).toEqual([
        ['a', 'completed', null, `exe_${workflow_id}-a`],
        ['b', 'completed', 'a', `exe_${workflow_id}-b`],
        ['c', 'completed', 'a', `exe_${workflow_id}-c`],
        ['d', 'completed', 'b', `exe_${workflow_id}-d`],
      ]);
      expect(node(final, 'd').output).toEqual({ from: 'd' });
      expect(final.nodes.every((n) => n.provenance_id?.startsWith('tx-') && typeof n.duration_ms === 'number')).toBe(
        true,
      );
      const own = appended.filter((a) => a.entry.subject_id === workflow_id);
      expect(own.map((a) => a.entry.step_id)).toEqual([
        'started',
        'node:a',
        expect.stringMatching(/node:[bc]/),
        expect.stringMatching(/node:[bc]/),
        'node:d',
        'finished',
      ]);
      expect(own.at(-1)!.events).toEqual([expect.objectContaining({ event: 'workflow.completed' })]);
      expect(dagProjections.map((p) => p.version)).toEqual([...dagProjections.keys()].map((i) => i + 1));
    });
  });

  it('follows a condition node’s branch and skips the other, down to its end', async () => {
    agentBehaviour = async (call) =>
      call.parameters.name === 'score' ? { score: 0.42 } : { done: call.parameters.name };
    await withWorker(async (taskQueue) => {
      const { handle } = await start(taskQueue, (id) => ({
        nodes: [
          agentNode(id, 'score'),
          {
            id: 'check',
            node_type: 'condition',
            node_name: 'good enough?',
            input: {},
            visual_metadata: {},
            condition: 'score >= 0.8',
          },
          agentNode(id, 'publish'),
          agentNode(id, 'announce'),
          agentNode(id, 'review'),
        ],
        edges: [
          seq('score', 'check'),
          when('check', 'publish', 'result'),
          seq('publish', 'announce'),
          when('check', 'review', '!result'),
        ],
      }));
      const final = await handle.result();
      expect(final.status).toBe('completed');
      expect(final.nodes.map((n) => [n.id, n.status])).toEqual([
        ['score', 'completed'],
        ['check', 'completed'],
        ['publish', 'skipped'],
        ['announce', 'skipped'],
        ['review', 'completed'],
      ]);
      expect(node(final, 'check').output).toEqual({ result: false });
      expect(calls.map((c) => c.parameters.name)).toEqual(['score', 'review']);
    });
  });

  it('waits for an approval node (a child approval workflow) and goes on once it is approved', async () => {
    await withWorker(async (taskQueue) => {
      const { handle, workflow_id } = await start(taskQueue, (id) => ({
        nodes: [agentNode(id, 'draft'), approvalNode(id, 'sign-off'), agentNode(id, 'send')],
        edges: [seq('draft', 'sign-off'), seq('sign-off', 'send')],
      }));
      const approval = env.client.workflow.getHandle(`apr_${workflow_id}-sign-off`);
      let pending;
      for (;;) {
        pending = await approval.query(approvalQuery).catch(() => undefined);
        if (pending?.status === 'pending' && pending.version > 0) break;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      expect(pending).toMatchObject({ workflow_id, request_data: { upstream: { draft: { from: 'draft' } } } });
      await env.sleep('30 minutes');
      await approval.executeUpdate(respondUpdate, {
        args: [
          {
            decision: 'approved',
            response_kind: 'approved',
            responded_by: 'did:web:x:boss',
            comment: 'ship it',
            principal: 'sub:boss',
          },
        ],
      });
      const final = await handle.result();
      expect(final.status).toBe('completed');
      expect(node(final, 'sign-off')).toMatchObject({
        status: 'completed',
        approval_id: `apr_${workflow_id}-sign-off`,
        output: { status: 'approved', responded_by: 'did:web:x:boss', comment: 'ship it' },
      });
      expect(node(final, 'sign-off').duration_ms).toBeGreaterThanOrEqual(30 * 60 * 1000);
      expect(calls[1]!.parameters.upstream).toEqual({
        'sign-off': { status: 'approved', responded_by: 'did:web:x:boss', comment: 'ship it', modified_params: null },
      });
    });
  });

  it('fails when an approval node expires: nothing after it starts, the branch already running finishes', async () => {
    await withWorker(async (taskQueue) => {
      const { handle, workflow_id } = await start(taskQueue, (id) => ({
        nodes: [
          approvalNode(id, 'gate', 600),
          approvalNode(id, 'other', 3600),
          agentNode(id, 'after-gate'),
          agentNode(id, 'after-other'),
        ],
        edges: [seq('gate', 'after-gate'), seq('other', 'after-other')],
      }));
      await handle.executeUpdate(dagStartedUpdate);
      await env.sleep('11 minutes');
      // The gate has expired and failed the workflow; the other approval still waits, and its answer is taken.
      await env.client.workflow.getHandle(`apr_${workflow_id}-other`).executeUpdate(respondUpdate, {
        args: [
          { decision: 'approved', response_kind: 'approved', responded_by: 'did:web:x:boss', principal: 'sub:boss' },
        ],
      });
      const final = await handle.result();
      expect(final).toMatchObject({ status: 'failed', error: { type: 'node_failed', node_ids: ['gate'] } });
      expect(final.nodes.map((n) => [n.id, n.status])).toEqual([
        ['gate', 'failed'],
        ['other', 'completed'],
        ['after-gate', 'skipped'],
        ['after-other', 'skipped'],
      ]);
      expect(node(final, 'gate').error).toMatchObject({
        type: 'approval_expired',
        approval_id: `apr_${workflow_id}-gate`,
      });
      expect(calls).toEqual([]);
      expect(appended.filter((a) => a.entry.subject_id === workflow_id).at(-1)!.events).toEqual([
        expect.objectContaining({ event: 'workflow.failed' }),
      ]);
    });
  });

  it('fails when an agent node’s execution fails, with the execution’s error on the node', async () => {
    agentBehaviour = async () => {
      throw ApplicationFailure.create({
        type: 'agent_rejected',
        message: 'HTTP 400',
        nonRetryable: true,
        details: [{ attempt: 1, status: 400 }],
      });
    };
    await withWorker(async (taskQueue) => {
      const { handle } = await start(taskQueue, (id) => ({ nodes: [agentNode(id, 'only')], edges: [] }));
      const final = await handle.result();
      expect(final.status).toBe('failed');
      expect(node(final, 'only')).toMatchObject({ status: 'failed', error: { type: 'agent_rejected', status: 400 } });
    });
  });
});

/**
 * Records the histories of the platform's workflows that the replay test replays: run with
 * `npx tsx scripts/histories/record-platform-histories.ts` after a deliberate, versioned change to the
 * approval, execution or DAG workflow, and commit the JSON files.
 */
import { randomUUID } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { ApplicationFailure, Context } from '@temporalio/activity';
import type { Client } from '@temporalio/client';
import { historyToJSON } from '@temporalio/common/lib/proto-utils';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker } from '@temporalio/worker';
import { provisionTemporal } from '../provision-temporal';
import { registerSearchAttributes } from '../../app/temporal';
import { bundleWorkflows } from '../../workers/create-worker';
import { approvalCreatedUpdate, respondUpdate, type ApprovalRequest } from '../../contracts/approval';
import { cancelExecutionUpdate, executionAcceptedUpdate, type ExecuteAgentInput } from '../../contracts/execute-agent';
import type { RunDagInput } from '../../contracts/run-dag';
import { approvalWorkflow } from '../../workflows/approval';
import { executeAgentWorkflow } from '../../workflows/execute-agent';
import { runDagWorkflow } from '../../workflows/run-dag';

const TASK_QUEUE = 'record-platform';
let block = 0;
const anchor = async () => ({ transaction_id: `tx-${++block}`, block_number: block });

const activities = {
  recordApprovalStep: anchor,
  recordExecutionStep: anchor,
  recordDagStep: anchor,
  async projectExecution() {},
  async invokeAgent(call: { parameters: Record<string, unknown> }) {
    const { attempt } = Context.current().info;
    if (call.parameters.hang) {
      const context = Context.current();
      const beat = setInterval(() => context.heartbeat(), 200);
      await context.cancelled.finally(() => clearInterval(beat));
    }
    if (call.parameters.flaky && attempt < 3)
      throw ApplicationFailure.create({
        type: 'agent_error',
        message: 'HTTP 503',
        details: [{ attempt, status: 503 }],
      });
    return { result: { done: true }, attempt };
  },
  async deliverCallback() {
    const { attempt } = Context.current().info;
    if (attempt < 2)
      throw ApplicationFailure.create({
        type: 'receiver_error',
        message: 'HTTP 500',
        details: [{ attempt, status: 500 }],
      });
    return { attempt, status: 204 };
  },
};

async function save(client: Client, workflowId: string, name: string): Promise<void> {
  const file = path.join(__dirname, '../../test/workflows/histories', `${name}.json`);
  writeFileSync(
    file,
    `${JSON.stringify(JSON.parse(historyToJSON(await client.workflow.getHandle(workflowId).fetchHistory())), null, 2)}\n`,
  );
  process.stdout.write(`wrote ${file}\n`);
}

function approvalRequest(now: number, extra: Partial<ApprovalRequest> = {}): ApprovalRequest {
  return {
    approval_id: `apr_${randomUUID()}`,
    requester_passport_id: 'did:web:x:requester',
    approver_passport_id: 'did:web:x:approver',
    action_description: 'record',
    risk_level: 'high',
    risk_factors: [],
    request_data: { amount: 20_000 },
    alternatives: [],
    expires_at: new Date(now + 3600_000).toISOString(),
    requested_by: 'recorder',
    ...extra,
  };
}

function executionInput(extra: Partial<ExecuteAgentInput> = {}): ExecuteAgentInput {
  return {
    execution_id: `exe_${randomUUID()}`,
    requested_by: 'recorder',
    agent: {
      agent_id: 'agt_1',
      agent_uri: 'agent://acme/recorder@1.0.0',
      passport_id: 'did:web:x:agent',
      endpoint_url: 'http://agent.invalid',
      timeout_seconds: 30,
    },
    capability_uri: 'capability://acme/record',
    requester_passport_id: 'did:web:x:requester',
    parameters: { flaky: true },
    risk: { level: 'high', factors: [] },
    max_attempts: 5,
    retry: { initial_interval_ms: 1000, backoff_coefficient: 2, maximum_interval_ms: 60_000 },
    heartbeat_timeout_ms: 10_000,
    ...extra,
  };
}

async function main(): Promise<void> {
  const { testServer } = await provisionTemporal();
  const env = await TestWorkflowEnvironment.createTimeSkipping({
    server: { executable: { type: 'existing-path', path: testServer } },
  });
  await registerSearchAttributes(env.connection, 'default');
  const worker = await Worker.create({
    connection: env.nativeConnection,
    taskQueue: TASK_QUEUE,
    workflowBundle: await bundleWorkflows(),
    activities,
  });
  await worker.runUntil(async () => {
    const { client } = env;

    const answered = approvalRequest(await env.currentTimeMs());
    const approval = await client.workflow.start(approvalWorkflow, {
      taskQueue: TASK_QUEUE,
      workflowId: answered.approval_id,
      args: [answered],
    });
    await approval.executeUpdate(approvalCreatedUpdate);
    await env.sleep('10 minutes');
    await approval.executeUpdate(respondUpdate, {
      args: [
        {
          decision: 'approved',
          response_kind: 'approved',
          responded_by: 'did:web:x:approver',
          modified_params: { amount: 10_000 },
          principal: 'recorder',
        },
      ],
    });
    await approval.result();
    await save(client, answered.approval_id, 'approval-approved-with-modified-params');

    const expiring = approvalRequest(await env.currentTimeMs());
    await client.workflow.execute(approvalWorkflow, {
      taskQueue: TASK_QUEUE,
      workflowId: expiring.approval_id,
      args: [expiring],
    });
    await save(client, expiring.approval_id, 'approval-expired');

    const base = executionInput({
      callback: {
        url: 'http://receiver.invalid',
        max_attempts: 3,
        retry: { initial_interval_ms: 1000, backoff_coefficient: 2, maximum_interval_ms: 60_000 },
        timeout_ms: 5000,
      },
    });
    const approved = {
      ...base,
      approval: approvalRequest(await env.currentTimeMs(), { execution_id: base.execution_id }),
    };
    const execution = await client.workflow.start(executeAgentWorkflow, {
      taskQueue: TASK_QUEUE,
      workflowId: approved.execution_id,
      args: [approved],
    });
    await execution.executeUpdate(executionAcceptedUpdate);
    await client.workflow.getHandle(approved.approval.approval_id).executeUpdate(respondUpdate, {
      args: [
        { decision: 'approved', response_kind: 'approve', responded_by: 'did:web:x:approver', principal: 'recorder' },
      ],
    });
    await execution.result();
    await save(client, approved.execution_id, 'execution-approved-retried-called-back');

    const hanging = executionInput({ parameters: { hang: true }, heartbeat_timeout_ms: 2000 });
    const cancelled = await client.workflow.start(executeAgentWorkflow, {
      taskQueue: TASK_QUEUE,
      workflowId: hanging.execution_id,
      args: [hanging],
    });
    await cancelled.executeUpdate(executionAcceptedUpdate);
    await new Promise((resolve) => setTimeout(resolve, 500));
    await cancelled.executeUpdate(cancelExecutionUpdate, {
      args: [{ cancelled_by: 'did:web:x:requester', reason: 'record', principal: 'recorder' }],
    });
    await cancelled.result();
    await save(client, hanging.execution_id, 'execution-cancelled-while-processing');

    const workflow_id = `wfl_${randomUUID()}`;
    const agentNode = (id: string): RunDagInput['nodes'][number] => ({
      id,
      node_type: 'agent',
      node_name: id,
      input: {},
      visual_metadata: {},
      agent: { ...executionInput({ parameters: {} }), execution_id: `exe_${workflow_id}-${id}` },
    });
    const dag: RunDagInput = {
      workflow_id,
      name: 'record',
      requested_by: 'recorder',
      nodes: [
        agentNode('a'),
        {
          id: 'check',
          node_type: 'condition',
          node_name: 'check',
          input: {},
          visual_metadata: {},
          condition: 'done == true',
        },
        agentNode('b'),
        agentNode('c'),
      ],
      edges: [
        { id: 'a-check', from_node_id: 'a', to_node_id: 'check', edge_type: 'sequence', metadata: {} },
        {
          id: 'check-b',
          from_node_id: 'check',
          to_node_id: 'b',
          edge_type: 'conditional',
          condition: 'result',
          metadata: {},
        },
        {
          id: 'check-c',
          from_node_id: 'check',
          to_node_id: 'c',
          edge_type: 'conditional',
          condition: '!result',
          metadata: {},
        },
      ],
    };
    await client.workflow.execute(runDagWorkflow, { taskQueue: TASK_QUEUE, workflowId: workflow_id, args: [dag] });
    await save(client, workflow_id, 'dag-condition-branches');
  });
  await env.teardown();
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});

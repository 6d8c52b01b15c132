import { WithStartWorkflowOperation } from '@temporalio/client';
import type { Knex } from 'knex';
import { dagFromRow, findDagById } from '../../db/dags';
import { findExecutionById } from '../../db/executions';
import { listProvenanceForSubject, type ProvenanceRecord } from '../../db/ledger';
import { findPlatformAgentByUri } from '../../db/platform-agents';
import { assessCallRisk } from '../../domain/executions/agent-calls';
import { validateDag } from '../../domain/dags/graph';
import type { ExecuteAgentInput } from '../../contracts/execute-agent';
import {
  dagStartedUpdate,
  RUN_DAG_WORKFLOW,
  type DagNodeSpec,
  type DagState,
  type RunDagInput,
  type RunDagWorkflow,
} from '../../contracts/run-dag';
import { PlatformStatusKey } from '../../contracts/search-attributes';
import { approvalDeadline, paramsValidator, type FieldProblem, type PlatformServiceDeps } from '../approvals/approvals';
import { grantedToAgent, prepareAgentCall } from '../executions/call';
import { derivedId } from '../../lib/ids';
import { startWithUpdate } from '../../lib/temporal-client';
import { storageRefusal, type StorageRefusal } from '../platform/refusals';

type ApprovalNodeSpec = NonNullable<DagNodeSpec['approval']>;

/**
 * A node as its creator gives it: the spec's own fields, the agent named by the call's URIs (its execution is
 * prepared here), the approval with its risk and lifetime left to defaults (its ids and deadline set here).
 */
export type NewDagNode = Pick<
  DagNodeSpec,
  'id' | 'node_type' | 'node_name' | 'input' | 'visual_metadata' | 'condition'
> & {
  agent?: ({ agentUri: string; capabilityUri: string } & Partial<Pick<ExecuteAgentInput, 'max_attempts'>>) | undefined;
  approval?:
    | (Pick<ApprovalNodeSpec, 'action_description' | 'approver_passport_id' | 'params_schema'> &
        Partial<Pick<ApprovalNodeSpec, 'expires_in_seconds' | 'risk_level' | 'risk_factors'>>)
    | undefined;
};

export type NewDag = Pick<RunDagInput, 'name' | 'edges'> &
  Pick<ApprovalNodeSpec, 'requester_passport_id'> & { nodes: NewDagNode[] };

export type CreateDagOutcome =
  { ok: true; workflow: DagState } | { ok: false; errors: FieldProblem[] } | StorageRefusal;

/** An agent node is checked like a call to /v1/agents/call: its execution and any approval it needs are part of the spec. */
async function agentNodeSpec(
  deps: PlatformServiceDeps,
  { workflow_id: workflowId, organization_id }: { workflow_id: string; organization_id: string },
  requester: string,
  node: NewDagNode,
  field: string,
  now: Date,
): Promise<DagNodeSpec['agent'] | FieldProblem[]> {
  const call = node.agent!;
  const agent = await findPlatformAgentByUri(deps.db, organization_id, call.agentUri);
  if (!agent)
    return [
      {
        field: `${field}.agent.agentUri`,
        code: 'agent_not_found',
        message: `no agent is registered as ${call.agentUri}`,
      },
    ];
  const execution_id = derivedId('exe', workflowId, node.id);
  const prepared = prepareAgentCall(
    deps.settings,
    agent,
    execution_id,
    {
      capability_uri: call.capabilityUri,
      passport: requester,
      parameters: node.input,
      max_attempts: call.max_attempts,
    },
    now,
    await grantedToAgent(deps.db, organization_id, agent, call.capabilityUri),
  );
  if (!prepared.ok)
    return prepared.code === 'invalid'
      ? prepared.errors.map((e) => ({ ...e, field: `${field}.${e.field}` }))
      : [{ field: `${field}.agent`, code: prepared.code, message: prepared.detail }];
  const { approval, ...execution } = prepared.input;
  return { ...execution, execution_id, ...(approval ? { approval } : {}) };
}

function approvalNodeSpec(
  deps: PlatformServiceDeps,
  workflowId: string,
  requester: string,
  node: NewDagNode,
  field: string,
  now: Date,
): DagNodeSpec['approval'] | FieldProblem[] {
  const approval = node.approval!;
  const lifetime = approval.expires_in_seconds ?? deps.settings.approvalDefaultTtlSeconds;
  const deadline = approvalDeadline(deps.settings, now, { expires_in_seconds: lifetime });
  const errors: FieldProblem[] = deadline.ok
    ? []
    : [{ ...deadline.error, field: `${field}.approval.expires_in_seconds` }];
  if (approval.params_schema) {
    const compiled = paramsValidator(approval.params_schema);
    if (!compiled.ok)
      errors.push({ field: `${field}.approval.params_schema`, code: 'invalid_schema', message: compiled.message });
  }
  if (errors.length > 0) return errors;
  const assessed = assessCallRisk(node.input);
  return {
    approval_id: derivedId('apr', workflowId, node.id),
    requester_passport_id: requester,
    approver_passport_id: approval.approver_passport_id,
    action_description: approval.action_description,
    risk_level: approval.risk_level ?? assessed.level,
    risk_factors: approval.risk_factors ?? assessed.factors,
    params_schema: approval.params_schema,
    alternatives: [],
    expires_in_seconds: lifetime,
  };
}

/**
 * Validates the DAG (acyclic, known node types, edges between its nodes, conditions that parse, each node
 * with what its type needs) and every agent node's call, then starts the workflow and answers once it runs.
 */
export async function createDag(
  deps: PlatformServiceDeps,
  ids: Pick<RunDagInput, 'workflow_id' | 'requested_by'> & { organization_id: string },
  body: NewDag,
): Promise<CreateDagOutcome> {
  const errors: FieldProblem[] = validateDag(body);
  const now = new Date();
  const nodes: DagNodeSpec[] = [];
  for (const [index, node] of body.nodes.entries()) {
    const field = `nodes.${index}`;
    const { agent: _agent, approval: _approval, ...fields } = node;
    const spec: DagNodeSpec = fields;
    if ((node.node_type === 'agent') !== (node.agent !== undefined))
      errors.push({
        field: `${field}.agent`,
        code: node.agent ? 'unexpected' : 'required',
        message: 'agent nodes, and only they, name an agent to call',
      });
    if ((node.node_type === 'approval') !== (node.approval !== undefined))
      errors.push({
        field: `${field}.approval`,
        code: node.approval ? 'unexpected' : 'required',
        message: 'approval nodes, and only they, describe an approval',
      });
    if (node.node_type === 'agent' && node.agent) {
      const agent = await agentNodeSpec(deps, ids, body.requester_passport_id, node, field, now);
      if (Array.isArray(agent)) errors.push(...agent);
      else spec.agent = agent;
    }
    if (node.node_type === 'approval' && node.approval) {
      const approval = approvalNodeSpec(deps, ids.workflow_id, body.requester_passport_id, node, field, now);
      if (Array.isArray(approval)) errors.push(...approval);
      else spec.approval = approval;
    }
    nodes.push(spec);
  }
  if (errors.length > 0) return { ok: false, errors };

  const input: RunDagInput = { ...ids, name: body.name, nodes, edges: body.edges };
  const start = new WithStartWorkflowOperation<RunDagWorkflow>(RUN_DAG_WORKFLOW, {
    workflowId: ids.workflow_id,
    taskQueue: deps.taskQueue,
    args: [input],
    workflowIdConflictPolicy: 'USE_EXISTING',
    workflowIdReusePolicy: 'REJECT_DUPLICATE',
    typedSearchAttributes: [{ key: PlatformStatusKey, value: 'pending' }],
  });
  const started = await startWithUpdate(
    deps.temporal,
    dagStartedUpdate,
    start,
    async () => {
      const row = await findDagById(deps.db, ids.organization_id, ids.workflow_id);
      return row && dagFromRow(row);
    },
    storageRefusal,
  );
  return started.ok ? { ok: true, workflow: started.value } : started;
}

/**
 * The provenance of a workflow run: its own records and those of every execution and approval its nodes
 * ran (an agent node's approval too), in ledger order, each with the node it belongs to.
 */
export async function workflowTrace(
  db: Knex,
  organizationId: string,
  workflow: DagState,
): Promise<Array<ProvenanceRecord & { node_id: string | null }>> {
  const nodeOf = new Map<string, string | null>([[workflow.workflow_id, null]]);
  for (const node of workflow.nodes) {
    if (node.approval_id) nodeOf.set(node.approval_id, node.id);
    if (!node.execution_id) continue;
    nodeOf.set(node.execution_id, node.id);
    const execution = await findExecutionById(db, node.execution_id, organizationId);
    if (execution?.approval_id) nodeOf.set(execution.approval_id, node.id);
  }
  const records = (
    await Promise.all([...nodeOf.keys()].map((subject) => listProvenanceForSubject(db, subject)))
  ).flat();
  // Ledger order is arrival order (leaf indexes follow it), also between records sealed into one block.
  return records
    .sort((a, b) => a.seq - b.seq)
    .map((record) => ({ ...record, node_id: nodeOf.get(record.entry.subject_id) ?? null }));
}

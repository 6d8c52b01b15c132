import {
  allHandlersFinished,
  ChildWorkflowFailure,
  condition,
  executeChild,
  proxyLocalActivities,
  setHandler,
  upsertSearchAttributes,
  workflowInfo,
} from '@temporalio/workflow';
import type { createDagActivities } from '../activities/dags';
import { dagQuery, dagStartedUpdate, type DagNodeSpec, type DagState, type RunDagInput } from '../contracts/run-dag';
import { PlatformStatusKey } from '../contracts/search-attributes';
import { conditionHolds } from '../domain/dag-conditions';
import { dagStats, planDag, predecessorIds, type NodeProgress } from '../domain/dag';
import type { EventKind } from '../domain/events';
import { ORCH_CORE_DID, type ProvenanceActor } from '../domain/provenance';
import { approvalWorkflow } from './approval';
import { executeAgentWorkflow } from './execute-agent';

const { recordDagStep } = proxyLocalActivities<ReturnType<typeof createDagActivities>>({
  startToCloseTimeout: '10 seconds',
  retry: { initialInterval: '100 ms', maximumInterval: '10 seconds' },
});

type NodeOutcome = { status: 'completed'; output: Record<string, unknown> } | { status: 'failed'; error: Record<string, unknown> };

/**
 * A workflow DAG: runs its nodes in dependency order, independent branches in parallel, each agent node as
 * an execution and each approval node as an approval (child workflows, so each has its own history, read
 * model and provenance), condition nodes by evaluating their condition. The first failure stops new nodes
 * from starting; the nodes already running finish, the rest are skipped, and the workflow fails.
 */
export async function runDagWorkflow(input: RunDagInput): Promise<DagState> {
  const { workflow_id } = input;
  const now = () => new Date().toISOString();
  const createdAt = new Date(workflowInfo().startTime).toISOString();
  const shape = { nodes: input.nodes, edges: input.edges };
  const specs = new Map(input.nodes.map((node) => [node.id, node]));
  const state: DagState = {
    workflow_id,
    version: 0,
    status: 'pending',
    name: input.name,
    requested_by: input.requested_by,
    agent_ids: [...new Set(input.nodes.flatMap((node) => (node.agent ? [node.agent.agent.agent_id, node.agent.agent.agent_uri] : [])))],
    edges: input.edges,
    nodes: input.nodes.map((node) => ({
      id: node.id,
      workflow_id,
      parent_node_id: predecessorIds(shape, node.id)[0] ?? null,
      node_type: node.node_type,
      node_name: node.node_name,
      agent_id: node.agent?.agent.agent_id ?? null,
      agent_name: node.agent?.agent.agent_uri ?? null,
      input: node.input,
      output: null,
      error: null,
      status: 'pending',
      ...(node.condition !== undefined ? { condition: node.condition } : {}),
      created_at: createdAt,
      started_at: null,
      completed_at: null,
      duration_ms: null,
      visual_metadata: node.visual_metadata,
      provenance_id: null,
      execution_id: node.agent?.execution_id ?? null,
      approval_id: node.approval?.approval_id ?? null,
    })),
    created_at: createdAt,
    updated_at: now(),
  };
  const nodeState = (id: string) => state.nodes.find((node) => node.id === id)!;
  let started = false;
  let nodeFinished = false;
  const running = new Set<string>();

  setHandler(dagQuery, () => state);
  setHandler(dagStartedUpdate, async () => {
    await condition(() => started);
    return state;
  });

  /** Records the state; with provenance (and an event) when the step is a decision worth keeping. */
  async function record(provenance?: { step_id: string; actor: ProvenanceActor; action: string; reasoning: string; output: Record<string, unknown>; event?: EventKind }): Promise<string | undefined> {
    state.version += 1;
    state.updated_at = now();
    upsertSearchAttributes([{ key: PlatformStatusKey, value: state.status }]);
    const anchor = await recordDagStep({
      provenance: provenance && {
        entry: {
          subject_id: workflow_id,
          step_id: provenance.step_id,
          timestamp: state.updated_at,
          actor: provenance.actor,
          action: provenance.action,
          input_data: { name: input.name, nodes: input.nodes.length, edges: input.edges.length },
          output_data: provenance.output,
          reasoning: provenance.reasoning,
        },
        events: provenance.event ? [{ event: provenance.event, data: { workflow_id, name: input.name, status: state.status, stats: dagStats(state.nodes) } }] : [],
      },
      state: { ...state, nodes: state.nodes.map((node) => ({ ...node })) },
    });
    return anchor?.transaction_id;
  }

  /** What a node receives from the nodes before it, by their ids. */
  function upstreamOf(nodeId: string): Record<string, unknown> {
    return Object.fromEntries(predecessorIds(shape, nodeId).map((id) => [id, nodeState(id).output ?? {}]));
  }

  async function runNode(spec: DagNodeSpec): Promise<NodeOutcome> {
    const upstream = upstreamOf(spec.id);
    const withUpstream = Object.keys(upstream).length > 0 ? { ...spec.input, upstream } : spec.input;
    if (spec.node_type === 'condition') {
      // The condition reads the outputs before it, merged, and each by its node id under `nodes`.
      const scope = Object.assign({}, ...Object.values(upstream), { nodes: upstream }) as Record<string, unknown>;
      return { status: 'completed', output: { result: conditionHolds(spec.condition ?? '', scope) } };
    }
    try {
      if (spec.agent) {
        const execution = await executeChild(executeAgentWorkflow, {
          workflowId: spec.agent.execution_id,
          args: [{ ...spec.agent, parameters: withUpstream, requested_by: input.requested_by, dag: { workflow_id, node_id: spec.id } }],
        });
        return execution.status === 'completed'
          ? { status: 'completed', output: execution.result_json ?? {} }
          : { status: 'failed', error: execution.error_json ?? { type: `execution_${execution.status}` } };
      }
      if (spec.approval) {
        const { expires_in_seconds, ...request } = spec.approval;
        const approval = await executeChild(approvalWorkflow, {
          workflowId: request.approval_id,
          args: [{ ...request, request_data: withUpstream, requested_by: input.requested_by, workflow_id, expires_at: new Date(Date.now() + expires_in_seconds * 1000).toISOString() }],
        });
        return approval.status === 'approved'
          ? { status: 'completed', output: { status: approval.status, responded_by: approval.responded_by ?? null, comment: approval.response_comment ?? null, modified_params: approval.modified_params ?? null } }
          : { status: 'failed', error: { type: `approval_${approval.status}`, approval_id: approval.approval_id, message: `The approval was ${approval.status}` } };
      }
    } catch (error) {
      if (!(error instanceof ChildWorkflowFailure)) throw error;
      return { status: 'failed', error: { type: 'child_workflow_failed', message: error.cause?.message ?? error.message } };
    }
    return { status: 'failed', error: { type: 'node_not_runnable', message: `Node ${spec.id} has nothing to run` } };
  }

  async function run(spec: DagNodeSpec): Promise<void> {
    try {
      await finishNode(spec, await runNode(spec));
    } finally {
      running.delete(spec.id);
      nodeFinished = true;
    }
  }

  async function finishNode(spec: DagNodeSpec, outcome: NodeOutcome): Promise<void> {
    const node = nodeState(spec.id);
    const at = now();
    node.status = outcome.status;
    node.completed_at = at;
    node.duration_ms = Date.parse(at) - Date.parse(node.started_at!);
    if (outcome.status === 'completed') node.output = outcome.output;
    else node.error = outcome.error;
    node.provenance_id =
      (await record({
        step_id: `node:${spec.id}`,
        actor: spec.agent ? { type: 'ai_agent', agent_id: spec.agent.agent.agent_uri, did: spec.agent.agent.passport_id } : { type: 'orch_core', did: ORCH_CORE_DID },
        action: `node_${outcome.status}`,
        reasoning: `${spec.node_type} node ${spec.id} (${spec.node_name}) ${outcome.status}`,
        output: { node_id: spec.id, status: outcome.status, execution_id: node.execution_id, approval_id: node.approval_id, ...(outcome.status === 'completed' ? { output: outcome.output } : { error: outcome.error }) },
      })) ?? null;
  }

  state.status = 'running';
  state.started_at = now();
  state.provenance_id = await record({
    step_id: 'started',
    actor: { type: 'orch_core', did: ORCH_CORE_DID },
    action: 'workflow_started',
    reasoning: `${input.requested_by} started ${input.name} with ${input.nodes.length} nodes`,
    output: { status: 'running' },
    event: 'workflow.started',
  });
  started = true;

  const failedNodes = () => state.nodes.filter((node) => node.status === 'failed');
  for (;;) {
    if (failedNodes().length === 0) {
      const progress: Record<string, NodeProgress> = Object.fromEntries(state.nodes.map((node) => [node.id, { status: node.status, output: node.output ?? undefined }]));
      const plan = planDag(shape, progress);
      for (const id of plan.skip) nodeState(id).status = 'skipped';
      for (const id of plan.start) {
        const node = nodeState(id);
        node.status = 'running';
        node.started_at = now();
        running.add(id);
      }
      if (plan.start.length > 0 || plan.skip.length > 0) await record();
      for (const id of plan.start) void run(specs.get(id)!);
    }
    if (running.size === 0) break;
    nodeFinished = false;
    await condition(() => nodeFinished);
  }

  const failed = failedNodes();
  for (const node of state.nodes) if (node.status === 'pending') node.status = 'skipped';
  state.status = failed.length > 0 ? 'failed' : 'completed';
  state.completed_at = now();
  if (failed.length > 0) state.error = { type: 'node_failed', node_ids: failed.map((node) => node.id), message: `Node ${failed[0]!.id} failed` };
  state.provenance_id =
    (await record({
      step_id: 'finished',
      actor: { type: 'orch_core', did: ORCH_CORE_DID },
      action: `workflow_${state.status}`,
      reasoning: failed.length > 0 ? `Node ${failed.map((node) => node.id).join(', ')} failed` : 'Every node completed or was skipped',
      output: { status: state.status, stats: dagStats(state.nodes) },
      event: state.status === 'failed' ? 'workflow.failed' : 'workflow.completed',
    })) ?? state.provenance_id;

  await condition(allHandlersFinished);
  return state;
}

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
import { DATABASE_ACTIVITY_RETRY, failedWith, storageFailure, type WorkflowFailure } from '../contracts/failures';
import { dagQuery, dagStartedUpdate, type DagNodeSpec, type DagState, type RunDagInput } from '../contracts/run-dag';
import { PlatformStatusKey } from '../contracts/search-attributes';
import { planDag, predecessorIds, type NodeProgress } from '../domain/dags/graph';
import {
  approvalOutcome,
  childFailedOutcome,
  conditionOutcome,
  dagEnding,
  dagRecord,
  dagStartedStep,
  executionOutcome,
  finishedNodeChanges,
  nodeFinishedStep,
  nodeInput,
  notRunnableOutcome,
  upstreamOutputs,
  type DagStep,
  type NodeOutcome,
} from '../domain/dags/steps';
import { approvalWorkflow } from './approval';
import { executeAgentWorkflow } from './execute-agent';

const { recordDagStep } = proxyLocalActivities<ReturnType<typeof createDagActivities>>({
  startToCloseTimeout: '10 seconds',
  retry: DATABASE_ACTIVITY_RETRY,
});

function pendingState(input: RunDagInput, createdAt: string, now: string): DagState {
  const { workflow_id } = input;
  return {
    workflow_id,
    version: 0,
    status: 'pending',
    name: input.name,
    requested_by: input.requested_by,
    agent_ids: [
      ...new Set(
        input.nodes.flatMap((node) => (node.agent ? [node.agent.agent.agent_id, node.agent.agent.agent_uri] : [])),
      ),
    ],
    edges: input.edges,
    nodes: input.nodes.map((node) => ({
      id: node.id,
      workflow_id,
      parent_node_id: predecessorIds(input, node.id)[0] ?? null,
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
    updated_at: now,
  };
}

/**
 * A workflow DAG: runs its nodes in dependency order, independent branches in parallel, each agent node as
 * an execution and each approval node as an approval (child workflows, so each has its own history, read
 * model and provenance), condition nodes by evaluating their condition. The first failure stops new nodes
 * from starting; the nodes already running finish, the rest are skipped, and the workflow fails. A step
 * that cannot be stored fails the run at once: its last stored state is kept as failed, with the reason.
 */
export async function runDagWorkflow(input: RunDagInput): Promise<DagState> {
  const { workflow_id } = input;
  const now = () => new Date().toISOString();
  const run = { workflow_id, name: input.name, node_count: input.nodes.length, edge_count: input.edges.length };
  const specs = new Map(input.nodes.map((node) => [node.id, node]));
  const state = pendingState(input, new Date(workflowInfo().startTime).toISOString(), now());
  const nodeState = (id: string) => state.nodes.find((node) => node.id === id)!;
  let started = false;
  let nodeFinished = false;
  const running = new Set<string>();
  /** The state as last stored, which a failure leaves in the read model. */
  let recorded: DagState | undefined;
  let failure: WorkflowFailure | undefined;
  /** What ended a node's run other than its outcome (a failure to store it), for the main loop to throw. */
  let nodeError: unknown;

  setHandler(dagQuery, () => state);
  setHandler(dagStartedUpdate, async () => {
    await condition(() => started || failure !== undefined);
    if (!started && failure) throw failedWith(failure);
    return state;
  });

  /** Records the state; with provenance (and an event) when the step is a decision worth keeping. */
  async function record(step?: DagStep): Promise<string | undefined> {
    state.version += 1;
    state.updated_at = now();
    upsertSearchAttributes([{ key: PlatformStatusKey, value: state.status }]);
    const stored = { ...state, nodes: state.nodes.map((node) => ({ ...node })) };
    const anchor = await recordDagStep({
      provenance: step && dagRecord(run, state, step, state.updated_at),
      state: stored,
      organization_id: input.organization_id,
    }).catch(async (error: unknown) => {
      throw await fail(error);
    });
    recorded = stored;
    return anchor?.transaction_id;
  }

  /** A step could not be stored: the run fails, and says why wherever it is read. */
  async function fail(error: unknown): Promise<unknown> {
    const failed = storageFailure(error);
    if (!failed || failure) return failure ? failedWith(failure) : error;
    failure = failed;
    const at = now();
    Object.assign(state, {
      status: 'failed',
      error: { ...failed },
      completed_at: at,
      version: state.version + 1,
      updated_at: at,
    });
    upsertSearchAttributes([{ key: PlatformStatusKey, value: state.status }]);
    if (recorded)
      await recordDagStep({
        state: {
          ...recorded,
          status: 'failed',
          error: { ...failed },
          completed_at: at,
          version: state.version,
          updated_at: at,
        },
        organization_id: input.organization_id,
      }).catch(() => undefined);
    await condition(allHandlersFinished);
    return failedWith(failed);
  }

  async function runNode(spec: DagNodeSpec): Promise<NodeOutcome> {
    const upstream = upstreamOutputs(input, spec.id, (id) => nodeState(id).output);
    if (spec.node_type === 'condition') return conditionOutcome(spec.condition, upstream);
    try {
      if (spec.agent) {
        const { approval, ...execution } = spec.agent;
        const args = [
          {
            ...execution,
            parameters: nodeInput(spec.input, upstream),
            requested_by: input.requested_by,
            ...(input.organization_id === undefined ? {} : { organization_id: input.organization_id }),
            dag: { workflow_id, node_id: spec.id },
            ...(approval ? { approval: { ...approval, requested_by: input.requested_by } } : {}),
          },
        ] as const;
        return executionOutcome(
          await executeChild(executeAgentWorkflow, { workflowId: spec.agent.execution_id, args }),
        );
      }
      if (spec.approval) {
        const { expires_in_seconds, ...request } = spec.approval;
        const expires_at = new Date(Date.now() + expires_in_seconds * 1000).toISOString();
        const args = [
          {
            ...request,
            request_data: nodeInput(spec.input, upstream),
            requested_by: input.requested_by,
            workflow_id,
            expires_at,
          },
        ] as const;
        return approvalOutcome(await executeChild(approvalWorkflow, { workflowId: request.approval_id, args }));
      }
    } catch (error) {
      if (!(error instanceof ChildWorkflowFailure)) throw error;
      return childFailedOutcome(error.cause?.message ?? error.message);
    }
    return notRunnableOutcome(spec.id);
  }

  async function runAndFinish(spec: DagNodeSpec): Promise<void> {
    try {
      const outcome = await runNode(spec);
      const node = nodeState(spec.id);
      const at = now();
      Object.assign(node, finishedNodeChanges(outcome, at, Date.parse(at) - Date.parse(node.started_at!)));
      node.provenance_id = (await record(nodeFinishedStep(node, spec.agent?.agent, outcome))) ?? null;
    } catch (error) {
      nodeError ??= error;
    } finally {
      running.delete(spec.id);
      nodeFinished = true;
    }
  }

  state.status = 'running';
  state.started_at = now();
  state.provenance_id = await record(
    dagStartedStep({ requested_by: input.requested_by, name: input.name, node_count: input.nodes.length }),
  );
  started = true;

  for (;;) {
    if (!state.nodes.some((node) => node.status === 'failed')) {
      const progress: Record<string, NodeProgress> = Object.fromEntries(
        state.nodes.map((node) => [node.id, { status: node.status, output: node.output ?? undefined }]),
      );
      const plan = planDag(input, progress);
      for (const id of plan.skip) nodeState(id).status = 'skipped';
      for (const id of plan.start) {
        Object.assign(nodeState(id), { status: 'running', started_at: now() });
        running.add(id);
      }
      if (plan.start.length > 0 || plan.skip.length > 0) await record();
      for (const id of plan.start) void runAndFinish(specs.get(id)!);
    }
    if (running.size === 0) break;
    nodeFinished = false;
    await condition(() => nodeFinished);
    if (nodeError !== undefined)
      throw nodeError instanceof Error ? nodeError : new Error('A node failed with a value that is not an Error');
  }

  const ending = dagEnding(state.nodes);
  for (const id of ending.skip) nodeState(id).status = 'skipped';
  Object.assign(state, { status: ending.status, completed_at: now() }, ending.error ? { error: ending.error } : {});
  state.provenance_id = (await record(ending.step)) ?? state.provenance_id;

  await condition(allHandlersFinished);
  return state;
}

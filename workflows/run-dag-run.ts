import {
  ChildWorkflowFailure,
  condition,
  executeChild,
  proxyLocalActivities,
  workflowInfo,
} from '@temporalio/workflow';
import type { createDagActivities } from '../activities/dags';
import { DATABASE_ACTIVITY_RETRY } from '../contracts/failures';
import type { DagNodeSpec, DagState, RunDagInput } from '../contracts/run-dag';
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
import { RecordedState } from './recorded-state';

const { recordDagStep } = proxyLocalActivities<ReturnType<typeof createDagActivities>>({
  startToCloseTimeout: '10 seconds',
  retry: DATABASE_ACTIVITY_RETRY,
});

const now = () => new Date().toISOString();

/** One run of a workflow DAG in time: its recorded state, the nodes running, and the steps that move it on. */
export class DagRun {
  readonly dag: RecordedState<DagState>;
  /** Whether the run's start is recorded: what its starter is answered after. */
  started = false;
  private readonly running = new Set<string>();
  /** Set when a node's run ends, for the main loop that waits on it. */
  private nodeFinished = false;
  /** What ended a node's run other than its outcome (a failure to store it), for the main loop to throw. */
  private nodeError: unknown;
  private readonly specs: Map<string, DagNodeSpec>;
  private readonly summary: { workflow_id: string; name: string; node_count: number; edge_count: number };

  constructor(readonly input: RunDagInput) {
    const { workflow_id, name, nodes, edges } = input;
    this.summary = { workflow_id, name, node_count: nodes.length, edge_count: edges.length };
    this.specs = new Map(nodes.map((node) => [node.id, node]));
    this.dag = new RecordedState(pendingState(input, new Date(workflowInfo().startTime).toISOString(), now()), {
      failedChanges: (failure, at) => ({ status: 'failed', error: { ...failure }, completed_at: at }),
      projectFailed: (failed) => recordDagStep({ state: failed, organization_id: input.organization_id }),
      copy: (state) => ({ ...state, nodes: state.nodes.map((node) => ({ ...node })) }),
      searchAttributes: (state) => [{ key: PlatformStatusKey, value: state.status }],
    });
  }

  get state(): DagState {
    return this.dag.state;
  }

  /** Whether no node runs. */
  get idle(): boolean {
    return this.running.size === 0;
  }

  async start(): Promise<void> {
    const { input, state } = this;
    state.status = 'running';
    state.started_at = now();
    state.provenance_id = await this.record(
      dagStartedStep({ requested_by: input.requested_by, name: input.name, node_count: input.nodes.length }),
    );
    this.started = true;
  }

  /** Unless a node failed: skips the nodes that can no longer run and starts those that can. */
  async startReady(): Promise<void> {
    const { state } = this;
    if (state.nodes.some((node) => node.status === 'failed')) return;
    const progress: Record<string, NodeProgress> = Object.fromEntries(
      state.nodes.map((node) => [node.id, { status: node.status, output: node.output ?? undefined }]),
    );
    const plan = planDag(this.input, progress);
    for (const id of plan.skip) this.node(id).status = 'skipped';
    for (const id of plan.start) {
      Object.assign(this.node(id), { status: 'running', started_at: now() });
      this.running.add(id);
    }
    if (plan.start.length > 0 || plan.skip.length > 0) await this.record();
    for (const id of plan.start) void this.runAndFinish(this.specs.get(id)!);
  }

  /** Waits until a node's run ends; throws what ended it other than its outcome. */
  async nodeEnded(): Promise<void> {
    this.nodeFinished = false;
    await condition(() => this.nodeFinished);
    const error = this.nodeError;
    if (error !== undefined)
      throw error instanceof Error ? error : new Error('A node failed with a value that is not an Error');
  }

  /** Ends the run once no node runs: completed, or failed when a node failed, the rest skipped. */
  async finish(): Promise<void> {
    const { state } = this;
    const ending = dagEnding(state.nodes);
    for (const id of ending.skip) this.node(id).status = 'skipped';
    Object.assign(state, { status: ending.status, completed_at: now() }, ending.error ? { error: ending.error } : {});
    state.provenance_id = (await this.record(ending.step)) ?? state.provenance_id;
  }

  private node(id: string) {
    return this.state.nodes.find((node) => node.id === id)!;
  }

  /** Records the state; with provenance (and an event) when the step is a decision worth keeping. */
  private async record(step?: DagStep): Promise<string | undefined> {
    const { dag, state } = this;
    dag.change({});
    const anchor = await dag.record((stored) =>
      recordDagStep({
        provenance: step && dagRecord(this.summary, state, step, state.updated_at),
        state: stored,
        organization_id: this.input.organization_id,
      }),
    );
    return anchor?.transaction_id;
  }

  private async runAndFinish(spec: DagNodeSpec): Promise<void> {
    try {
      const outcome = await this.runNode(spec);
      const node = this.node(spec.id);
      const at = now();
      Object.assign(node, finishedNodeChanges(outcome, at, Date.parse(at) - Date.parse(node.started_at!)));
      node.provenance_id = (await this.record(nodeFinishedStep(node, spec.agent?.agent, outcome))) ?? null;
    } catch (error) {
      this.nodeError ??= error;
    } finally {
      this.running.delete(spec.id);
      this.nodeFinished = true;
    }
  }

  /** A node's run: its condition evaluated, or its execution or approval as a child workflow. */
  private async runNode(spec: DagNodeSpec): Promise<NodeOutcome> {
    const { input } = this;
    const { workflow_id } = input;
    const upstream = upstreamOutputs(input, spec.id, (id) => this.node(id).output);
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
}

/** The run as started: every node pending. */
function pendingState(input: RunDagInput, createdAt: string, updatedAt: string): DagState {
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
    updated_at: updatedAt,
  };
}

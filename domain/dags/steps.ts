/**
 * The steps of a workflow DAG's run: what each node's end means (from its execution, approval or
 * condition), how the run ends, and the provenance record and event each step leaves. The DAG workflow
 * only says what happened; what that means is decided here.
 */
import { conditionHolds } from './conditions';
import { dagStats, predecessorIds, type DagNodeStatus, type DagShape, type DagStatus } from './graph';
import type { EventKind } from '../provenance/events';
import { ORCH_CORE_DID, type AppendProvenanceInput, type ProvenanceActor } from '../provenance/records';

export type NodeOutcome =
  { status: 'completed'; output: Record<string, unknown> } | { status: 'failed'; error: Record<string, unknown> };

/** The action of each step's provenance record. */
export type DagAction = 'workflow_started' | `workflow_${'completed' | 'failed'}` | `node_${NodeOutcome['status']}`;

/** A step worth a provenance record (and, for the run's start and end, an event). */
export interface DagStep {
  step_id: string;
  actor: ProvenanceActor;
  action: DagAction;
  reasoning: string;
  output: Record<string, unknown>;
  event?: EventKind;
}

interface NodeFacts {
  id: string;
  status: DagNodeStatus;
  duration_ms?: number | null | undefined;
}

const core: ProvenanceActor = { type: 'orch_core', did: ORCH_CORE_DID };

/** What a node receives from the nodes before it, by their ids. */
export function upstreamOutputs(
  dag: DagShape,
  nodeId: string,
  outputOf: (id: string) => Record<string, unknown> | null,
): Record<string, Record<string, unknown>> {
  return Object.fromEntries(predecessorIds(dag, nodeId).map((id) => [id, outputOf(id) ?? {}]));
}

/** A node's own input, with the outputs before it under `upstream` when there are any. */
export function nodeInput(
  input: Record<string, unknown>,
  upstream: Record<string, Record<string, unknown>>,
): Record<string, unknown> {
  return Object.keys(upstream).length > 0 ? { ...input, upstream } : input;
}

/** A condition node reads the outputs before it, merged, and each by its node id under `nodes`. */
export function conditionOutcome(
  condition: string | undefined,
  upstream: Record<string, Record<string, unknown>>,
): NodeOutcome {
  const scope = Object.assign({}, ...Object.values(upstream), { nodes: upstream }) as Record<string, unknown>;
  return { status: 'completed', output: { result: conditionHolds(condition ?? '', scope) } };
}

export function executionOutcome(execution: {
  status: string;
  result_json?: Record<string, unknown> | undefined;
  error_json?: Record<string, unknown> | undefined;
}): NodeOutcome {
  return execution.status === 'completed'
    ? { status: 'completed', output: execution.result_json ?? {} }
    : { status: 'failed', error: execution.error_json ?? { type: `execution_${execution.status}` } };
}

export function approvalOutcome(approval: {
  approval_id: string;
  status: string;
  responded_by?: string | undefined;
  response_comment?: string | undefined;
  modified_params?: Record<string, unknown> | undefined;
}): NodeOutcome {
  return approval.status === 'approved'
    ? {
        status: 'completed',
        output: {
          status: approval.status,
          responded_by: approval.responded_by ?? null,
          comment: approval.response_comment ?? null,
          modified_params: approval.modified_params ?? null,
        },
      }
    : {
        status: 'failed',
        error: {
          type: `approval_${approval.status}`,
          approval_id: approval.approval_id,
          message: `The approval was ${approval.status}`,
        },
      };
}

/** The node's child workflow failed instead of returning its state. */
export function childFailedOutcome(message: string): NodeOutcome {
  return { status: 'failed', error: { type: 'child_workflow_failed', message } };
}

export function notRunnableOutcome(nodeId: string): NodeOutcome {
  return { status: 'failed', error: { type: 'node_not_runnable', message: `Node ${nodeId} has nothing to run` } };
}

/** What a node's end sets on it. */
export function finishedNodeChanges(outcome: NodeOutcome, at: string, durationMs: number) {
  return {
    status: outcome.status,
    completed_at: at,
    duration_ms: durationMs,
    ...(outcome.status === 'completed' ? { output: outcome.output } : { error: outcome.error }),
  };
}

export function dagStartedStep(run: { requested_by: string; name: string; node_count: number }): DagStep {
  return {
    step_id: 'started',
    actor: core,
    action: 'workflow_started',
    reasoning: `${run.requested_by} started ${run.name} with ${run.node_count} nodes`,
    output: { status: 'running' },
    event: 'workflow.started',
  };
}

export function nodeFinishedStep(
  node: { id: string; node_type: string; node_name: string; execution_id: string | null; approval_id: string | null },
  agent: { agent_uri: string; passport_id: string } | undefined,
  outcome: NodeOutcome,
): DagStep {
  return {
    step_id: `node:${node.id}`,
    actor: agent ? { type: 'ai_agent', agent_id: agent.agent_uri, did: agent.passport_id } : core,
    action: `node_${outcome.status}`,
    reasoning: `${node.node_type} node ${node.id} (${node.node_name}) ${outcome.status}`,
    output: {
      node_id: node.id,
      status: outcome.status,
      execution_id: node.execution_id,
      approval_id: node.approval_id,
      ...(outcome.status === 'completed' ? { output: outcome.output } : { error: outcome.error }),
    },
  };
}

/**
 * How a run ends once no node runs: failed when a node failed, completed otherwise; the nodes still
 * pending (after a failure) are skipped.
 */
export function dagEnding(nodes: readonly NodeFacts[]): {
  status: Extract<DagStatus, 'completed' | 'failed'>;
  skip: string[];
  error?: Record<string, unknown>;
  step: DagStep;
} {
  const failed = nodes.filter((node) => node.status === 'failed').map((node) => node.id);
  const skip = nodes.filter((node) => node.status === 'pending').map((node) => node.id);
  const status = failed.length > 0 ? 'failed' : 'completed';
  const stats = dagStats(
    nodes.map((node) => (node.status === 'pending' ? { ...node, status: 'skipped' as const } : node)),
  );
  return {
    status,
    skip,
    ...(failed.length > 0
      ? { error: { type: 'node_failed', node_ids: failed, message: `Node ${failed[0]!} failed` } }
      : {}),
    step: {
      step_id: 'finished',
      actor: core,
      action: `workflow_${status}`,
      reasoning: failed.length > 0 ? `Node ${failed.join(', ')} failed` : 'Every node completed or was skipped',
      output: { status, stats },
      event: status === 'failed' ? 'workflow.failed' : 'workflow.completed',
    },
  };
}

/** The provenance record (and event) of a step, over the run as the step left it. */
export function dagRecord(
  run: { workflow_id: string; name: string; node_count: number; edge_count: number },
  dag: { status: DagStatus; nodes: readonly NodeFacts[] },
  step: DagStep,
  at: string,
): AppendProvenanceInput {
  return {
    entry: {
      subject_id: run.workflow_id,
      step_id: step.step_id,
      timestamp: at,
      actor: step.actor,
      action: step.action,
      input_data: { name: run.name, nodes: run.node_count, edges: run.edge_count },
      output_data: step.output,
      reasoning: step.reasoning,
    },
    events: step.event
      ? [
          {
            event: step.event,
            data: { workflow_id: run.workflow_id, name: run.name, status: dag.status, stats: dagStats(dag.nodes) },
          },
        ]
      : [],
  };
}

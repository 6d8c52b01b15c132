import {
  DAG_EDGE_TYPES,
  DAG_NODE_STATUSES,
  DAG_NODE_TYPES,
  DAG_STATUSES,
  dagStats,
  rootNodeIds,
} from '../../domain/dags/graph';
import { RISK_LEVELS } from '../../domain/routing/risk';
import { DagState } from '../../contracts/aggregates/dag';
import { viewOf } from '../../lib/shape';
import { RiskFactorSchema } from './approvals';
import { DidSchema, LedgerAnchorSchema, listQuerySchema } from './common';
import { z } from './zod';

const JsonObjectSchema = z.record(z.string(), z.unknown());
const NodeIdSchema = z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, 'letters, digits, _ and - (at most 64)');

export const DagStatsSchema = z
  .object({
    total_nodes: z.number().int(),
    completed: z.number().int(),
    failed: z.number().int(),
    running: z.number().int(),
    pending: z.number().int(),
    skipped: z.number().int().openapi({ description: 'Nodes on a branch no edge led into, or after a failure' }),
    total_duration_ms: z.number().int().openapi({ description: 'Sum of the durations of the nodes that finished' }),
    avg_node_duration_ms: z.number(),
  })
  .openapi('WorkflowStats');

/** The run as its list shows it: what the DAG holds, without its nodes, edges and what only the workflow keeps. */
const dag = viewOf(DagState, { hide: ['nodes', 'edges', 'version', 'requested_by', 'agent_ids', 'updated_at'] });
// The summary puts what it computes (root node, stats) between the run's names and its outcome.
const { workflow_id: idField, name: nameField, status: statusField, ...outcomeFields } = dag.schema.shape;

const summaryShape = {
  workflow_id: idField,
  name: nameField,
  status: statusField,
  root_node: z.object({ id: z.string(), status: z.enum(DAG_NODE_STATUSES), created_at: z.string() }),
  stats: DagStatsSchema,
  ...outcomeFields,
};

export const WorkflowSummarySchema = z.object(summaryShape).openapi('WorkflowSummary');
export const WorkflowDetailSchema = z
  .object({ ...summaryShape, nodes: DagState.shape.nodes, edges: DagState.shape.edges })
  .openapi('WorkflowDetail');

export function workflowSummary(state: DagState): z.infer<typeof WorkflowSummarySchema> {
  const root = state.nodes.find((node) => node.id === rootNodeIds(state)[0]) ?? state.nodes[0]!;
  const { workflow_id, name, status, ...outcome } = dag.of(state);
  return {
    workflow_id,
    name,
    status,
    root_node: { id: root.id, status: root.status, created_at: root.created_at },
    stats: dagStats(state.nodes),
    ...outcome,
  };
}

export function workflowDetail(state: DagState): z.infer<typeof WorkflowDetailSchema> {
  return { ...workflowSummary(state), nodes: state.nodes, edges: state.edges };
}

const NewNodeSchema = z
  .object({
    id: NodeIdSchema,
    node_type: z.enum(DAG_NODE_TYPES),
    node_name: z.string().min(1).max(200),
    input: JsonObjectSchema.default({}).openapi({
      description:
        'Agent nodes: the call’s parameters; approval nodes: the request_data. Outputs of the nodes before are added as `upstream`',
    }),
    visual_metadata: JsonObjectSchema.default({}),
    condition: z.string().max(1000).optional().openapi({
      description:
        'Condition nodes: evaluated over the outputs before them (merged, and each under nodes.<id>); output {result}',
    }),
    agent: z
      .object({
        agentUri: z.string(),
        capabilityUri: z.string(),
        max_attempts: z.number().int().min(1).max(20).optional(),
      })
      .strict()
      .optional()
      .openapi({
        description:
          'Agent nodes: the call, checked like POST /v1/agents/call (an approval first when the agent’s policy asks for it)',
      }),
    approval: z
      .object({
        action_description: z.string().min(1).max(2000),
        approver_passport_id: DidSchema.optional(),
        expires_in_seconds: z
          .number()
          .int()
          .positive()
          .optional()
          .openapi({ description: 'From when the node starts; default APPROVAL_DEFAULT_TTL_SECONDS' }),
        params_schema: JsonObjectSchema.optional(),
        risk_level: z.enum(RISK_LEVELS).optional(),
        risk_factors: z.array(RiskFactorSchema).max(50).optional(),
      })
      .strict()
      .optional()
      .openapi({ description: 'Approval nodes: what to ask; the node completes when approved, fails otherwise' }),
  })
  .strict();

export const CreateWorkflowSchema = z
  .object({
    name: z.string().min(1).max(200),
    requester_passport_id: DidSchema.optional().openapi({
      description: 'Who the agent calls and approvals are for; default: the caller',
    }),
    nodes: z.array(NewNodeSchema).min(1).max(100),
    edges: z
      .array(
        z
          .object({
            id: NodeIdSchema,
            from_node_id: NodeIdSchema,
            to_node_id: NodeIdSchema,
            edge_type: z.enum(DAG_EDGE_TYPES).default('sequence'),
            condition: z.string().max(1000).optional().openapi({
              description:
                'Conditional edges: taken when it holds for the source node’s output, e.g. `score >= 0.8 && status == "ok"`',
            }),
            metadata: JsonObjectSchema.default({}),
          })
          .strict(),
      )
      .max(500)
      .default([]),
  })
  .strict()
  .openapi('CreateWorkflowRequest');

export const WorkflowIdParamsSchema = z.object({
  workflow_id: z.string().regex(/^wfl_[A-Za-z0-9-]{1,64}$/, 'must be a workflow id (wfl_…)'),
});

export const ListWorkflowsQuerySchema = listQuerySchema.extend({
  status: z.enum(DAG_STATUSES).optional(),
  agent_id: z
    .string()
    .min(1)
    .optional()
    .openapi({ description: 'Workflows with a node calling this agent (agt_… or agent URI)' }),
});

export const WorkflowTraceSchema = z
  .object({
    workflow_id: z.string(),
    records: z.array(
      z.object({
        subject_id: z
          .string()
          .openapi({ description: 'The workflow, or the execution or approval of one of its nodes' }),
        node_id: z.string().nullable(),
        step_id: z.string(),
        timestamp: z.string(),
        actor: JsonObjectSchema,
        action: z.string(),
        output_data: JsonObjectSchema,
        reasoning: z.string(),
        ledger_anchor: LedgerAnchorSchema,
      }),
    ),
  })
  .openapi('WorkflowProvenanceTrace');

import {
  DAG_EDGE_TYPES,
  DAG_NODE_STATUSES,
  DAG_NODE_TYPES,
  DAG_STATUSES,
  dagStats,
  rootNodeIds,
} from '../../domain/dags/graph';
import { RISK_LEVELS } from '../../domain/routing/risk';
import type { DagState } from '../../contracts/run-dag';
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

const DagNodeSchema = z
  .object({
    id: z.string(),
    workflow_id: z.string(),
    parent_node_id: z
      .string()
      .nullable()
      .openapi({ description: 'The first node an edge comes from; null for a root' }),
    node_type: z.enum(DAG_NODE_TYPES),
    node_name: z.string(),
    agent_id: z.string().nullable(),
    agent_name: z.string().nullable(),
    input: JsonObjectSchema,
    output: JsonObjectSchema.nullable(),
    error: JsonObjectSchema.nullable(),
    status: z.enum(DAG_NODE_STATUSES),
    condition: z.string().optional(),
    created_at: z.string(),
    started_at: z.string().nullable(),
    completed_at: z.string().nullable(),
    duration_ms: z.number().int().nullable(),
    visual_metadata: JsonObjectSchema,
    provenance_id: z.string().nullable(),
    execution_id: z.string().nullable(),
    approval_id: z.string().nullable(),
  })
  .openapi('WorkflowNode');

const DagEdgeSchema = z
  .object({
    id: z.string(),
    from_node_id: z.string(),
    to_node_id: z.string(),
    edge_type: z.enum(DAG_EDGE_TYPES),
    condition: z.string().optional(),
    metadata: JsonObjectSchema,
  })
  .openapi('WorkflowEdge');

const summaryShape = {
  workflow_id: z.string(),
  name: z.string(),
  status: z.enum(DAG_STATUSES),
  root_node: z.object({ id: z.string(), status: z.enum(DAG_NODE_STATUSES), created_at: z.string() }),
  stats: DagStatsSchema,
  error: JsonObjectSchema.nullable(),
  provenance_id: z.string().nullable(),
  created_at: z.string(),
  started_at: z.string().nullable(),
  completed_at: z.string().nullable(),
};

export const WorkflowSummarySchema = z.object(summaryShape).openapi('WorkflowSummary');
export const WorkflowDetailSchema = z
  .object({ ...summaryShape, nodes: z.array(DagNodeSchema), edges: z.array(DagEdgeSchema) })
  .openapi('WorkflowDetail');

export function workflowSummary(state: DagState): z.infer<typeof WorkflowSummarySchema> {
  const root = state.nodes.find((node) => node.id === rootNodeIds(state)[0]) ?? state.nodes[0]!;
  return {
    workflow_id: state.workflow_id,
    name: state.name,
    status: state.status,
    root_node: { id: root.id, status: root.status, created_at: root.created_at },
    stats: dagStats(state.nodes),
    error: state.error ?? null,
    provenance_id: state.provenance_id ?? null,
    created_at: state.created_at,
    started_at: state.started_at ?? null,
    completed_at: state.completed_at ?? null,
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

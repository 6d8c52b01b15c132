import { z } from 'zod';
import { DAG_EDGE_TYPES, DAG_NODE_STATUSES, DAG_NODE_TYPES, DAG_STATUSES } from '../../domain/dags/graph';

const JsonObject = z.record(z.string(), z.unknown());

export const DagEdgeSpec = z
  .object({
    id: z.string(),
    from_node_id: z.string(),
    to_node_id: z.string(),
    edge_type: z.enum(DAG_EDGE_TYPES),
    condition: z.string().optional(),
    metadata: JsonObject,
  })
  .meta({ id: 'WorkflowEdge' });
export type DagEdgeSpec = z.infer<typeof DagEdgeSpec>;

/** A node as it runs: the API shows it as the DAG holds it. */
export const DagNodeState = z
  .object({
    id: z.string(),
    workflow_id: z.string(),
    parent_node_id: z.string().nullable().meta({ description: 'The first node an edge comes from; null for a root' }),
    node_type: z.enum(DAG_NODE_TYPES),
    node_name: z.string(),
    agent_id: z.string().nullable(),
    agent_name: z.string().nullable(),
    input: JsonObject,
    output: JsonObject.nullable(),
    error: JsonObject.nullable(),
    status: z.enum(DAG_NODE_STATUSES),
    condition: z.string().optional(),
    created_at: z.string(),
    started_at: z.string().nullable(),
    completed_at: z.string().nullable(),
    duration_ms: z.number().int().nullable(),
    visual_metadata: JsonObject,
    provenance_id: z.string().nullable(),
    execution_id: z.string().nullable(),
    approval_id: z.string().nullable(),
  })
  .meta({ id: 'WorkflowNode' });
export type DagNodeState = z.infer<typeof DagNodeState>;

/**
 * A workflow DAG run: its nodes and edges, how far it has come and how it ended. The run-dag workflow holds it
 * (its id is workflow_id), platform_workflows projects it, the API shows it (api/schemas/workflows.ts); all of
 * them take their fields from here. Fields are in the order the API's detail shows them.
 */
export const DagState = z.object({
  workflow_id: z.string(),
  name: z.string(),
  status: z.enum(DAG_STATUSES),
  error: JsonObject.optional(),
  provenance_id: z.string().optional(),
  created_at: z.string(),
  started_at: z.string().optional(),
  completed_at: z.string().optional(),
  nodes: z.array(DagNodeState),
  edges: z.array(DagEdgeSpec),
  version: z.number().int(),
  /** The principal that asked. */
  requested_by: z.string(),
  /** The agents its nodes call, for listing a DAG by agent. */
  agent_ids: z.array(z.string()),
  updated_at: z.string(),
});
export type DagState = z.infer<typeof DagState>;

import { defineQuery, defineUpdate } from '@temporalio/workflow';
import type { DagEdgeType, DagNodeStatus, DagNodeType, DagStatus } from '../domain/dags/graph';
import type { ApprovalRequest } from './approval';
import type { ExecuteAgentInput } from './execute-agent';

export interface DagEdgeSpec {
  id: string;
  from_node_id: string;
  to_node_id: string;
  edge_type: DagEdgeType;
  condition?: string | undefined;
  metadata: Record<string, unknown>;
}

/** A node as the API prepared it: agent nodes carry their execution, approval nodes their request. */
export interface DagNodeSpec {
  id: string;
  node_type: DagNodeType;
  node_name: string;
  input: Record<string, unknown>;
  visual_metadata: Record<string, unknown>;
  condition?: string | undefined;
  /** The execution this node runs; its parameters are the node's input plus `upstream` outputs. */
  agent?:
    | (Omit<ExecuteAgentInput, 'parameters' | 'dag' | 'requested_by' | 'callback' | 'approval'> & {
        approval?: Omit<ApprovalRequest, 'requested_by'> | undefined;
      })
    | undefined;
  /** The approval this node asks for; its request_data is the node's input plus `upstream` outputs. */
  approval?:
    | (Omit<ApprovalRequest, 'expires_at' | 'request_data' | 'requested_by' | 'workflow_id'> & {
        expires_in_seconds: number;
      })
    | undefined;
}

export interface RunDagInput {
  workflow_id: string;
  name: string;
  requested_by: string;
  /** The organization the DAG belongs to; absent (histories from before tenancy): the default one. */
  organization_id?: string | undefined;
  nodes: DagNodeSpec[];
  edges: DagEdgeSpec[];
}

export interface DagNodeState {
  id: string;
  workflow_id: string;
  parent_node_id: string | null;
  node_type: DagNodeType;
  node_name: string;
  agent_id: string | null;
  agent_name: string | null;
  input: Record<string, unknown>;
  output: Record<string, unknown> | null;
  error: Record<string, unknown> | null;
  status: DagNodeStatus;
  condition?: string | undefined;
  created_at: string;
  started_at: string | null;
  completed_at: string | null;
  duration_ms: number | null;
  visual_metadata: Record<string, unknown>;
  provenance_id: string | null;
  execution_id: string | null;
  approval_id: string | null;
}

export interface DagState {
  workflow_id: string;
  version: number;
  status: DagStatus;
  name: string;
  requested_by: string;
  agent_ids: string[];
  nodes: DagNodeState[];
  edges: DagEdgeSpec[];
  error?: Record<string, unknown>;
  provenance_id?: string;
  created_at: string;
  started_at?: string;
  completed_at?: string;
  updated_at: string;
}

/** The workflow's type name and signature, so that clients start it without loading workflow code. */
export const RUN_DAG_WORKFLOW = 'runDagWorkflow';
export type RunDagWorkflow = (input: RunDagInput) => Promise<DagState>;

/** Answers once the DAG runs (its start recorded): what its creator (Update-with-Start) is answered with. */
export const dagStartedUpdate = defineUpdate<DagState>('started');
export const dagQuery = defineQuery<DagState>('status');

import { defineQuery, defineUpdate } from '@temporalio/workflow';
import type { ApprovalRequest } from './approval';
import type { DagNodeState, DagState } from './aggregates/dag';
import type { ExecuteAgentInput } from './execute-agent';

export type { DagEdgeSpec, DagNodeState, DagState } from './aggregates/dag';

/** A node as the API prepared it: agent nodes carry their execution, approval nodes their request. */
export interface DagNodeSpec extends Pick<
  DagNodeState,
  'id' | 'node_type' | 'node_name' | 'input' | 'visual_metadata' | 'condition'
> {
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

export interface RunDagInput extends Pick<DagState, 'workflow_id' | 'name' | 'requested_by' | 'edges'> {
  /** The organization the DAG belongs to; absent (histories from before tenancy): the default one. */
  organization_id?: string | undefined;
  nodes: DagNodeSpec[];
}

/** The workflow's type name and signature, so that clients start it without loading workflow code. */
export const RUN_DAG_WORKFLOW = 'runDagWorkflow';
export type RunDagWorkflow = (input: RunDagInput) => Promise<DagState>;

/** Answers once the DAG runs (its start recorded): what its creator (Update-with-Start) is answered with. */
export const dagStartedUpdate = defineUpdate<DagState>('started');
export const dagQuery = defineQuery<DagState>('status');

import { defineQuery, defineUpdate, type RetryPolicy } from '@temporalio/workflow';
import type { ApprovalRequest } from './approval';
import type { ExecutionState } from './aggregates/execution';
import { NON_RETRYABLE_FAILURE_TYPES } from './failures';

export type { ExecutionState } from './aggregates/execution';

export interface AgentTarget extends Pick<ExecutionState, 'agent_id' | 'agent_uri'> {
  passport_id: string;
  endpoint_url: string;
  /** How long one attempt may take. */
  timeout_seconds: number;
}

export interface RetrySchedule {
  initial_interval_ms: number;
  backoff_coefficient: number;
  maximum_interval_ms: number;
}

/** The execution id is the workflow id; every timeout and retry figure is an input. */
export interface ExecuteAgentInput extends Pick<
  ExecutionState,
  | 'execution_id'
  | 'requested_by'
  | 'task_id'
  | 'capability_uri'
  | 'requester_passport_id'
  | 'parameters'
  | 'max_attempts'
> {
  /** The organization the execution belongs to; absent (histories from before tenancy): the default one. */
  organization_id?: string | undefined;
  agent: AgentTarget;
  risk: { level: ExecutionState['risk_level']; factors: ExecutionState['risk_factors'] };
  retry: RetrySchedule;
  /** An attempt that has not heartbeated for this long is taken as lost (its worker died) and retried. */
  heartbeat_timeout_ms: number;
  callback?: { url: string; max_attempts: number; retry: RetrySchedule; timeout_ms: number } | undefined;
  /** Asked first, as a child workflow, when the agent's policy wants a human to approve this call. */
  approval?: ApprovalRequest | undefined;
  /** The workflow DAG node this execution runs. */
  dag?: { workflow_id: string; node_id: string } | undefined;
}

export interface CancelExecutionInput {
  cancelled_by: string;
  reason?: string | undefined;
  principal: string;
}

/** What the agent reports while it works; attempt comes from its progress token. */
export interface ProgressReport {
  attempt: number;
  progress_percent: number;
  progress_message?: string | undefined;
}

export interface AgentAnswer {
  result: Record<string, unknown>;
  attempt: number;
}

/** Details every failure of the invocation and callback activities carries. */
export interface AttemptFailureDetails {
  attempt: number;
  status?: number | undefined;
}

/** The Temporal retry policy of an agent call or a callback: its schedule, bounded by its attempts. */
export function retryPolicyOf(schedule: RetrySchedule, maximumAttempts: number): RetryPolicy {
  return {
    maximumAttempts,
    initialInterval: schedule.initial_interval_ms,
    backoffCoefficient: schedule.backoff_coefficient,
    maximumInterval: schedule.maximum_interval_ms,
    nonRetryableErrorTypes: NON_RETRYABLE_FAILURE_TYPES,
  };
}

/** An execution's state when it is queued: the input, as the read model and the API show it. */
export function queuedExecution(input: ExecuteAgentInput, queued_at: string, updated_at: string): ExecutionState {
  return {
    execution_id: input.execution_id,
    version: 0,
    status: 'queued',
    agent_id: input.agent.agent_id,
    agent_uri: input.agent.agent_uri,
    capability_uri: input.capability_uri,
    requester_passport_id: input.requester_passport_id,
    requested_by: input.requested_by,
    parameters: input.parameters,
    risk_level: input.risk.level,
    risk_factors: input.risk.factors,
    progress_percent: 0,
    callback_attempts: 0,
    max_attempts: input.max_attempts,
    current_attempt: 0,
    queued_at,
    updated_at,
    ...(input.task_id ? { task_id: input.task_id } : {}),
    ...(input.approval ? { approval_id: input.approval.approval_id } : {}),
    ...(input.dag ? { workflow_id: input.dag.workflow_id, node_id: input.dag.node_id } : {}),
    ...(input.callback ? { callback_url: input.callback.url } : {}),
  };
}

/** The workflow's type name and signature, so that clients start it without loading workflow code. */
export const EXECUTE_AGENT_WORKFLOW = 'executeAgentWorkflow';
export type ExecuteAgentWorkflow = (input: ExecuteAgentInput) => Promise<ExecutionState>;

/** Answers once the execution is queued and, when an approval is asked for, once that request is recorded too. */
export const executionAcceptedUpdate = defineUpdate<ExecutionState>('accepted');
/** Refused with FAILURE_TYPES.executionNotCancellable once the execution has finished or is being cancelled. */
export const cancelExecutionUpdate = defineUpdate<ExecutionState, [CancelExecutionInput]>('cancel');
/** Refused with FAILURE_TYPES.executionNotProcessing unless the reporting attempt is the running one. */
export const progressUpdate = defineUpdate<ExecutionState, [ProgressReport]>('progress');
export const executionQuery = defineQuery<ExecutionState>('status');

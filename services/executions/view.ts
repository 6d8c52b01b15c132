import type { ExecutionState } from '../../contracts/execute-agent';
import type { Nullable } from '../../lib/nullable';

/** The state under its resource id, without what only the workflow keeps (version, the principal that asked), unset fields null. */
export type ExecutionView = { id: ExecutionState['execution_id'] } & Nullable<
  Omit<ExecutionState, 'execution_id' | 'version' | 'requested_by'>
>;

/** An execution as the API shows it and as its callback carries it: one shape for both. */
export function executionView(state: ExecutionState): ExecutionView {
  return {
    id: state.execution_id,
    status: state.status,
    task_id: state.task_id ?? null,
    agent_id: state.agent_id,
    agent_uri: state.agent_uri,
    capability_uri: state.capability_uri,
    requester_passport_id: state.requester_passport_id,
    parameters: state.parameters,
    risk_level: state.risk_level,
    risk_factors: state.risk_factors,
    approval_id: state.approval_id ?? null,
    workflow_id: state.workflow_id ?? null,
    node_id: state.node_id ?? null,
    result_json: state.result_json ?? null,
    error_json: state.error_json ?? null,
    progress_percent: state.progress_percent,
    progress_message: state.progress_message ?? null,
    callback_url: state.callback_url ?? null,
    callback_success: state.callback_success ?? null,
    callback_attempts: state.callback_attempts,
    max_attempts: state.max_attempts,
    current_attempt: state.current_attempt,
    cancelled_by: state.cancelled_by ?? null,
    cancel_reason: state.cancel_reason ?? null,
    provenance_id: state.provenance_id ?? null,
    queued_at: state.queued_at,
    started_at: state.started_at ?? null,
    completed_at: state.completed_at ?? null,
    updated_at: state.updated_at,
  };
}

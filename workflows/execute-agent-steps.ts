import {
  ActivityCancellationType,
  ActivityFailure,
  ApplicationFailure,
  CancellationScope,
  ChildWorkflowFailure,
  executeChild,
  proxyActivities,
  proxyLocalActivities,
  workflowInfo,
} from '@temporalio/workflow';
import type { createExecutionActivities } from '../activities/executions';
import { queuedExecution, retryPolicyOf } from '../contracts/execute-agent';
import type {
  AttemptFailureDetails,
  ExecuteAgentInput,
  ExecutionState,
  ProgressReport,
} from '../contracts/execute-agent';
import { DATABASE_ACTIVITY_RETRY, failedWith, FAILURE_TYPES, refuseWith, storageFailure } from '../contracts/failures';
import { PlatformStatusKey } from '../contracts/search-attributes';
import {
  callbackTransition,
  executionRecord,
  progressChanges,
  startedTransition,
  type ExecutionEnding,
  type ExecutionTransition,
} from '../domain/executions/steps';
import { approvalWorkflow } from './approval';
import { RecordedState } from './recorded-state';

/** The steps of executeAgentWorkflow: its state and records, the agent's call, and the callback. */

type Activities = ReturnType<typeof createExecutionActivities>;
type Execution = RecordedState<ExecutionState>;

const { recordExecutionStep, projectExecution } = proxyLocalActivities<Activities>({
  startToCloseTimeout: '10 seconds',
  retry: DATABASE_ACTIVITY_RETRY,
});

export const now = () => new Date().toISOString();

/** The execution as queued, stored through its transitions; a failure is stated as error_json. */
export function executionState(input: ExecuteAgentInput): Execution {
  return new RecordedState(queuedExecution(input, new Date(workflowInfo().startTime).toISOString(), now()), {
    failedChanges: (failure, at) => ({ status: 'failed', error_json: { ...failure }, completed_at: at }),
    projectFailed: (failed) => projectExecution(failed, input.organization_id),
    searchAttributes: (state) => [{ key: PlatformStatusKey, value: state.status }],
  });
}

/** A transition: provenance, events and the projection, never cut short by a cancellation. */
export function recordStep(execution: Execution, input: ExecuteAgentInput, transition: ExecutionTransition) {
  return CancellationScope.nonCancellable(async () => {
    const at = now();
    execution.change(transition.changes, at);
    await execution.record(
      (state) =>
        recordExecutionStep({
          provenance: executionRecord(execution.state, transition, at),
          state,
          organization_id: input.organization_id,
        }),
      (anchor) => {
        execution.state.provenance_id = anchor.transaction_id;
      },
    );
  });
}

/** Progress between transitions: the read model only; a report it cannot store is refused, the execution goes on. */
export async function recordProgress(execution: Execution, input: ExecuteAgentInput, report: ProgressReport) {
  execution.change(progressChanges(execution.state, report));
  await projectExecution({ ...execution.state }, input.organization_id).catch((error: unknown) => {
    const failed = storageFailure(error);
    throw failed ? failedWith(failed) : error;
  });
  return execution.state;
}

/**
 * The work of the execution: its approval when the agent's policy wants one (a child approval workflow),
 * then the agent's call, over HTTP by an activity whose retry policy is the execution's.
 */
export async function callAgent(execution: Execution, input: ExecuteAgentInput): Promise<ExecutionEnding> {
  const { state } = execution;
  if (input.approval) {
    const approval = await executeChild(approvalWorkflow, {
      workflowId: input.approval.approval_id,
      args: [input.approval],
    });
    if (approval.status !== 'approved')
      return { kind: 'not_approved', approval_id: approval.approval_id, approval_status: approval.status };
    // The approver's modified parameters are what the agent receives.
    if (approval.modified_params) state.parameters = { ...state.parameters, ...approval.modified_params };
  }
  await recordStep(execution, input, startedTransition(state, now()));
  const { invokeAgent } = proxyActivities<Activities>({
    startToCloseTimeout: input.agent.timeout_seconds * 1000 + 5000,
    heartbeatTimeout: input.heartbeat_timeout_ms,
    cancellationType: ActivityCancellationType.WAIT_CANCELLATION_COMPLETED,
    retry: retryPolicyOf(input.retry, input.max_attempts),
  });
  const answer = await invokeAgent({
    execution_id: input.execution_id,
    agent_uri: input.agent.agent_uri,
    endpoint_url: input.agent.endpoint_url,
    timeout_ms: input.agent.timeout_seconds * 1000,
    capability_uri: input.capability_uri,
    parameters: state.parameters,
    requester_passport_id: input.requester_passport_id,
    task_id: input.task_id,
  });
  return { kind: 'answered', result: answer.result, attempt: answer.attempt };
}

/** How a failure of the approval or of the agent's call ends the execution; any other error is thrown on. */
export function failedEnding(error: unknown, input: ExecuteAgentInput): ExecutionEnding {
  if (error instanceof ChildWorkflowFailure && input.approval) {
    const cause = error.cause instanceof ApplicationFailure ? error.cause : undefined;
    return {
      kind: 'approval_failed',
      approval_id: input.approval.approval_id,
      type: cause?.type ?? 'approval_failed',
      message: cause?.message ?? error.message,
    };
  }
  if (!(error instanceof ActivityFailure)) throw error;
  const cause = error.cause instanceof ApplicationFailure ? error.cause : undefined;
  const details = cause?.details?.[0] as AttemptFailureDetails | undefined;
  return {
    kind: 'failed',
    type: cause?.type ?? undefined,
    message: cause?.message ?? error.message,
    attempt: attemptOf(error),
    status: details?.status,
  };
}

/** Delivers the finished execution to its callback_url, signed, with its own retries; the transition that records how it went. */
export async function callBack(
  input: ExecuteAgentInput,
  callback: NonNullable<ExecuteAgentInput['callback']>,
  state: ExecutionState,
): Promise<ExecutionTransition> {
  const { deliverCallback } = proxyActivities<Activities>({
    startToCloseTimeout: callback.timeout_ms + 5000,
    retry: retryPolicyOf(callback.retry, callback.max_attempts),
  });
  try {
    const delivered = await CancellationScope.nonCancellable(() =>
      deliverCallback({
        execution_id: input.execution_id,
        url: callback.url,
        requested_by: input.requested_by,
        organization_id: input.organization_id,
        timeout_ms: callback.timeout_ms,
        event: `execution.${state.status}`,
        execution: { ...state },
      }),
    );
    return callbackTransition(callback.url, { success: true, attempts: delivered.attempt });
  } catch (error) {
    if (!(error instanceof ActivityFailure)) throw error;
    return callbackTransition(callback.url, {
      success: false,
      attempts: attemptOf(error) ?? callback.max_attempts,
      error: error.cause?.message ?? error.message,
    });
  }
}

/** A cancel's answer once the execution has finished: its state when the cancel ended it, else a refusal. */
export function cancelled(state: ExecutionState): ExecutionState {
  const refusal = `Execution ${state.execution_id} ${state.status} before it could be cancelled`;
  refuseWith(FAILURE_TYPES.executionNotCancellable, state.status === 'cancelled' ? undefined : refusal);
  return state;
}

/** The attempt an invocation or callback failure reports in its details. */
function attemptOf(error: ActivityFailure): number | undefined {
  const cause = error.cause;
  if (!(cause instanceof ApplicationFailure)) return undefined;
  return (cause.details?.[0] as AttemptFailureDetails | undefined)?.attempt;
}

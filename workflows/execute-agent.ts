import {
  ActivityCancellationType,
  ActivityFailure,
  allHandlersFinished,
  ApplicationFailure,
  CancellationScope,
  condition,
  executeChild,
  isCancellation,
  proxyActivities,
  proxyLocalActivities,
  setHandler,
  upsertSearchAttributes,
  workflowInfo,
  type RetryPolicy,
} from '@temporalio/workflow';
import type { createExecutionActivities } from '../activities/executions';
import { approvalRequestedSignal } from '../contracts/approval';
import { cancelExecutionUpdate, executionAcceptedUpdate, executionQuery, progressUpdate } from '../contracts/execute-agent';
import type { AttemptFailureDetails, CancelExecutionInput, ExecuteAgentInput, ExecutionState, RetrySchedule } from '../contracts/execute-agent';
import { FAILURE_TYPES, refuseWith } from '../contracts/failures';
import { PlatformStatusKey } from '../contracts/search-attributes';
import { callbackTransition, cancelRefusal, executionRecord, finishedTransition, progressChanges, progressRefusal, queuedTransition, startedTransition } from '../domain/execution-steps';
import type { ExecutionEnding, ExecutionTransition } from '../domain/execution-steps';
import { approvalWorkflow } from './approval';

type Activities = ReturnType<typeof createExecutionActivities>;

const { recordExecutionStep, projectExecution } = proxyLocalActivities<Activities>({
  startToCloseTimeout: '10 seconds',
  retry: { initialInterval: '100 ms', maximumInterval: '10 seconds' },
});

const retryPolicy = (schedule: RetrySchedule, maximumAttempts: number): RetryPolicy => ({
  maximumAttempts,
  initialInterval: schedule.initial_interval_ms,
  backoffCoefficient: schedule.backoff_coefficient,
  maximumInterval: schedule.maximum_interval_ms,
});

/** The attempt an invocation or callback failure reports in its details. */
function attemptOf(error: ActivityFailure): number | undefined {
  const cause = error.cause;
  if (!(cause instanceof ApplicationFailure)) return undefined;
  return (cause.details?.[0] as AttemptFailureDetails | undefined)?.attempt;
}

function queuedState(input: ExecuteAgentInput, now: string): ExecutionState {
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
    queued_at: new Date(workflowInfo().startTime).toISOString(),
    updated_at: now,
    ...(input.task_id ? { task_id: input.task_id } : {}),
    ...(input.approval ? { approval_id: input.approval.approval_id } : {}),
    ...(input.dag ? { workflow_id: input.dag.workflow_id, node_id: input.dag.node_id } : {}),
    ...(input.callback ? { callback_url: input.callback.url } : {}),
  };
}

/**
 * One asynchronous agent call: queued → processing → completed | failed | cancelled. When the agent's
 * policy wants it, the call first waits for its approval (a child approval workflow). The agent is called
 * over HTTP by an activity whose retry policy is the execution's (max_attempts and backoff); the agent
 * reports progress through the API, which delivers it here as an Update. When the execution finishes,
 * its callback_url receives the result, signed, with its own retries.
 */
export async function executeAgentWorkflow(input: ExecuteAgentInput): Promise<ExecutionState> {
  const { execution_id } = input;
  const now = () => new Date().toISOString();
  const state = queuedState(input, now());
  /** The state as recorded when the call was accepted: what the caller is answered with. */
  let accepted: ExecutionState | undefined = undefined;
  let approvalRequested = false;
  let finishedRecorded = false;
  let cancelRequest: CancelExecutionInput | undefined;
  // The approval wait and the agent call run here, so a cancel stops whichever is under way.
  const work = new CancellationScope();

  setHandler(executionQuery, () => state);
  setHandler(approvalRequestedSignal, () => {
    approvalRequested = true;
  });
  // Accepted once queued and, when an approval is asked for, once that request is recorded too.
  setHandler(executionAcceptedUpdate, async () => {
    await condition(() => (accepted !== undefined && (!input.approval || approvalRequested)) || finishedRecorded);
    return accepted ?? state;
  });
  setHandler(
    cancelExecutionUpdate,
    async (request) => {
      cancelRequest = request;
      work.cancel();
      await condition(() => finishedRecorded);
      refuseWith(FAILURE_TYPES.executionNotCancellable, state.status === 'cancelled' ? undefined : `Execution ${execution_id} ${state.status} before it could be cancelled`);
      return state;
    },
    { validator: (_request: CancelExecutionInput) => refuseWith(FAILURE_TYPES.executionNotCancellable, cancelRefusal(state, cancelRequest !== undefined)) },
  );
  setHandler(
    progressUpdate,
    async (report) => {
      Object.assign(state, progressChanges(state, report), { version: state.version + 1, updated_at: now() });
      await projectExecution({ ...state });
      return state;
    },
    { validator: (report) => refuseWith(FAILURE_TYPES.executionNotProcessing, progressRefusal(state, cancelRequest !== undefined, report.attempt)) },
  );

  /** A transition: provenance, events and the projection, never cut short by a cancellation. */
  const step = (transition: ExecutionTransition) =>
    CancellationScope.nonCancellable(async () => {
      const at = now();
      Object.assign(state, transition.changes, { version: state.version + 1, updated_at: at });
      upsertSearchAttributes([{ key: PlatformStatusKey, value: state.status }]);
      const anchor = await recordExecutionStep({ provenance: executionRecord(state, transition, at), state: { ...state } });
      state.provenance_id = anchor.transaction_id;
    });

  await step(queuedTransition(state));
  accepted = { ...state };

  const { invokeAgent } = proxyActivities<Activities>({
    startToCloseTimeout: input.agent.timeout_seconds * 1000 + 5000,
    heartbeatTimeout: input.heartbeat_timeout_ms,
    cancellationType: ActivityCancellationType.WAIT_CANCELLATION_COMPLETED,
    retry: retryPolicy(input.retry, input.max_attempts),
  });

  let ending: ExecutionEnding;
  try {
    ending = await work.run(async (): Promise<ExecutionEnding> => {
      if (input.approval) {
        const approval = await executeChild(approvalWorkflow, { workflowId: input.approval.approval_id, args: [input.approval] });
        if (approval.status !== 'approved') return { kind: 'not_approved', approval_id: approval.approval_id, approval_status: approval.status };
        // The approver's modified parameters are what the agent receives.
        if (approval.modified_params) state.parameters = { ...state.parameters, ...approval.modified_params };
      }
      await step(startedTransition(state, now()));
      const answer = await invokeAgent({
        execution_id,
        agent_uri: input.agent.agent_uri,
        endpoint_url: input.agent.endpoint_url,
        timeout_ms: input.agent.timeout_seconds * 1000,
        capability_uri: input.capability_uri,
        parameters: state.parameters,
        requester_passport_id: input.requester_passport_id,
        task_id: input.task_id,
      });
      return { kind: 'answered', result: answer.result, attempt: answer.attempt };
    });
  } catch (error) {
    if (isCancellation(error)) ending = { kind: 'cancelled', request: cancelRequest };
    else if (error instanceof ActivityFailure) {
      const cause = error.cause instanceof ApplicationFailure ? error.cause : undefined;
      const details = cause?.details?.[0] as AttemptFailureDetails | undefined;
      ending = { kind: 'failed', type: cause?.type ?? undefined, message: cause?.message ?? error.message, attempt: attemptOf(error), status: details?.status };
    } else throw error;
  }

  await step(finishedTransition(state, input.agent, ending, now()));
  finishedRecorded = true;

  if (input.callback) {
    const callback = input.callback;
    const { deliverCallback } = proxyActivities<Activities>({ startToCloseTimeout: callback.timeout_ms + 5000, retry: retryPolicy(callback.retry, callback.max_attempts) });
    let outcome: { success: boolean; attempts: number; error?: string };
    try {
      const delivered = await CancellationScope.nonCancellable(() =>
        deliverCallback({ execution_id, url: callback.url, requested_by: input.requested_by, timeout_ms: callback.timeout_ms, event: `execution.${state.status}`, execution: { ...state } }),
      );
      outcome = { success: true, attempts: delivered.attempt };
    } catch (error) {
      if (!(error instanceof ActivityFailure)) throw error;
      outcome = { success: false, attempts: attemptOf(error) ?? callback.max_attempts, error: error.cause?.message ?? error.message };
    }
    await step(callbackTransition(callback.url, outcome));
  }

  await condition(allHandlersFinished);
  return state;
}

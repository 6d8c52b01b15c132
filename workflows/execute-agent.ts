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
} from '@temporalio/workflow';
import type { createExecutionActivities } from '../activities/executions';
import { approvalRequestedSignal } from '../contracts/approval';
import {
  cancelExecutionUpdate,
  executionAcceptedUpdate,
  executionQuery,
  progressUpdate,
  type AttemptFailureDetails,
  type CancelExecutionInput,
  type ExecuteAgentInput,
  type ExecutionState,
} from '../contracts/execute-agent';
import { FAILURE_TYPES } from '../contracts/failures';
import { PlatformStatusKey } from '../contracts/search-attributes';
import { isFinished } from '../domain/agent-calls';
import type { EventKind } from '../domain/events';
import { ORCH_CORE_DID, type ProvenanceActor } from '../domain/provenance';
import { approvalWorkflow } from './approval';

type Activities = ReturnType<typeof createExecutionActivities>;

const { recordExecutionStep, projectExecution } = proxyLocalActivities<Activities>({
  startToCloseTimeout: '10 seconds',
  retry: { initialInterval: '100 ms', maximumInterval: '10 seconds' },
});

function attemptOf(error: ActivityFailure): number | undefined {
  const cause = error.cause;
  if (!(cause instanceof ApplicationFailure)) return undefined;
  return (cause.details?.[0] as AttemptFailureDetails | undefined)?.attempt;
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
  const state: ExecutionState = {
    execution_id,
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
    updated_at: now(),
    ...(input.task_id ? { task_id: input.task_id } : {}),
    ...(input.approval ? { approval_id: input.approval.approval_id } : {}),
    ...(input.dag ? { workflow_id: input.dag.workflow_id, node_id: input.dag.node_id } : {}),
    ...(input.callback ? { callback_url: input.callback.url } : {}),
  };
  /** The state as recorded when the call was accepted: what the caller is answered with. */
  let accepted: ExecutionState | undefined = undefined;
  let approvalRequested = false;
  let finishedRecorded = false;
  let cancelRequest: CancelExecutionInput | undefined;
  // The approval wait and the agent call run here, so a cancel stops whichever is under way.
  const work = new CancellationScope();

  const failure = (type: string, message: string) => ApplicationFailure.create({ type, message, nonRetryable: true });

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
      if (state.status !== 'cancelled') throw failure(FAILURE_TYPES.executionNotCancellable, `Execution ${execution_id} ${state.status} before it could be cancelled`);
      return state;
    },
    {
      validator: (_request: CancelExecutionInput) => {
        if (cancelRequest || isFinished(state.status)) throw failure(FAILURE_TYPES.executionNotCancellable, `Execution ${execution_id} is ${cancelRequest ? 'already being cancelled' : state.status}`);
      },
    },
  );
  setHandler(
    progressUpdate,
    async (report) => {
      state.current_attempt = Math.max(state.current_attempt, report.attempt);
      state.progress_percent = report.progress_percent;
      if (report.progress_message !== undefined) state.progress_message = report.progress_message;
      state.version += 1;
      state.updated_at = now();
      await projectExecution({ ...state });
      return state;
    },
    {
      validator: (report) => {
        if (state.status !== 'processing' || cancelRequest) throw failure(FAILURE_TYPES.executionNotProcessing, `Execution ${execution_id} is ${cancelRequest ? 'being cancelled' : state.status}, not processing`);
        if (report.attempt < state.current_attempt) throw failure(FAILURE_TYPES.executionNotProcessing, `Attempt ${report.attempt} is over; attempt ${state.current_attempt} is running`);
      },
    },
  );

  /** A transition: provenance, events and the projection, never cut short by a cancellation. */
  function step(step_id: string, actor: ProvenanceActor, action: string, reasoning: string, event: EventKind | undefined, changes: Partial<ExecutionState>): Promise<void> {
    return CancellationScope.nonCancellable(async () => {
      const at = now();
      Object.assign(state, changes, { version: state.version + 1, updated_at: at });
      upsertSearchAttributes([{ key: PlatformStatusKey, value: state.status }]);
      const anchor = await recordExecutionStep({
        provenance: {
          entry: {
            subject_id: execution_id,
            step_id,
            timestamp: at,
            actor,
            action,
            input_data: { agent_uri: input.agent.agent_uri, capability_uri: input.capability_uri, parameters: state.parameters },
            output_data: { status: state.status, ...changes },
            reasoning,
          },
          events: event ? [{ event, data: eventData() }] : [],
        },
        state: { ...state },
      });
      state.provenance_id = anchor.transaction_id;
    });
  }

  function eventData(): Record<string, unknown> {
    return {
      execution_id,
      status: state.status,
      agent_id: state.agent_id,
      agent_uri: state.agent_uri,
      capability_uri: state.capability_uri,
      task_id: state.task_id ?? null,
      approval_id: state.approval_id ?? null,
      ...(state.error_json ? { error: state.error_json } : {}),
    };
  }

  const core: ProvenanceActor = { type: 'orch_core', did: ORCH_CORE_DID };
  const agent: ProvenanceActor = { type: 'ai_agent', agent_id: input.agent.agent_uri, did: input.agent.passport_id };

  await step('queued', core, 'execution_queued', `${input.requester_passport_id} called ${input.capability_uri} on ${input.agent.agent_uri}`, 'execution.queued', {});
  accepted = { ...state };

  const { invokeAgent } = proxyActivities<Activities>({
    startToCloseTimeout: input.agent.timeout_seconds * 1000 + 5000,
    heartbeatTimeout: input.heartbeat_timeout_ms,
    cancellationType: ActivityCancellationType.WAIT_CANCELLATION_COMPLETED,
    retry: {
      maximumAttempts: input.max_attempts,
      initialInterval: input.retry.initial_interval_ms,
      backoffCoefficient: input.retry.backoff_coefficient,
      maximumInterval: input.retry.maximum_interval_ms,
    },
  });

  let finish: { status: 'completed' | 'failed' | 'cancelled'; changes: Partial<ExecutionState>; reasoning: string; actor: ProvenanceActor };
  try {
    finish = await work.run(async () => {
      if (input.approval) {
        const approval = await executeChild(approvalWorkflow, { workflowId: input.approval.approval_id, args: [input.approval] });
        if (approval.status !== 'approved') {
          return {
            status: 'cancelled' as const,
            actor: core,
            reasoning: `The approval ${approval.approval_id} was ${approval.status}`,
            changes: { error_json: { type: `approval_${approval.status}`, approval_id: approval.approval_id, message: `The call was not approved: its approval was ${approval.status}` } },
          };
        }
        // The approver's modified parameters are what the agent receives.
        if (approval.modified_params) state.parameters = { ...state.parameters, ...approval.modified_params };
      }
      await step('processing', core, 'execution_started', `Calling ${input.agent.agent_uri} at its endpoint`, 'execution.started', { status: 'processing', started_at: now() });
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
      return {
        status: 'completed' as const,
        actor: agent,
        reasoning: `${input.agent.agent_uri} answered on attempt ${answer.attempt}`,
        changes: { result_json: answer.result, current_attempt: Math.max(state.current_attempt, answer.attempt), progress_percent: 100 },
      };
    });
  } catch (error) {
    if (isCancellation(error)) {
      finish = {
        status: 'cancelled',
        actor: cancelRequest ? { type: 'human', did: cancelRequest.cancelled_by } : core,
        reasoning: cancelRequest?.reason ?? `Cancelled by ${cancelRequest?.cancelled_by ?? 'a cancellation of the workflow'}`,
        changes: { cancelled_by: cancelRequest?.cancelled_by ?? ORCH_CORE_DID, ...(cancelRequest?.reason !== undefined ? { cancel_reason: cancelRequest.reason } : {}) },
      };
    } else if (error instanceof ActivityFailure) {
      const cause = error.cause instanceof ApplicationFailure ? error.cause : undefined;
      const details = cause?.details?.[0] as AttemptFailureDetails | undefined;
      finish = {
        status: 'failed',
        actor: agent,
        reasoning: `${input.agent.agent_uri} did not complete the call: ${cause?.message ?? error.message}`,
        changes: {
          current_attempt: Math.max(state.current_attempt, attemptOf(error) ?? 0),
          error_json: { type: cause?.type ?? 'agent_call_failed', message: cause?.message ?? error.message, ...(details?.status !== undefined ? { status: details.status } : {}) },
        },
      };
    } else {
      throw error;
    }
  }

  await step(finish.status, finish.actor, `execution_${finish.status}`, finish.reasoning, `execution.${finish.status}`, { status: finish.status, completed_at: now(), ...finish.changes });
  finishedRecorded = true;

  if (input.callback) {
    const callback = input.callback;
    const { deliverCallback } = proxyActivities<Activities>({
      startToCloseTimeout: callback.timeout_ms + 5000,
      retry: {
        maximumAttempts: callback.max_attempts,
        initialInterval: callback.retry.initial_interval_ms,
        backoffCoefficient: callback.retry.backoff_coefficient,
        maximumInterval: callback.retry.maximum_interval_ms,
      },
    });
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
    await step(
      'callback',
      core,
      outcome.success ? 'callback_delivered' : 'callback_failed',
      outcome.success ? `${callback.url} took the result on attempt ${outcome.attempts}` : `${callback.url} did not take the result in ${outcome.attempts} attempts: ${outcome.error}`,
      undefined,
      { callback_success: outcome.success, callback_attempts: outcome.attempts },
    );
  }

  await condition(allHandlersFinished);
  return state;
}

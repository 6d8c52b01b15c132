import {
  ActivityCancellationType,
  ActivityFailure,
  allHandlersFinished,
  ApplicationFailure,
  CancellationScope,
  ChildWorkflowFailure,
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
} from '../contracts/execute-agent';
import { queuedExecution, retryPolicyOf } from '../contracts/execute-agent';
import type {
  AttemptFailureDetails,
  CancelExecutionInput,
  ExecuteAgentInput,
  ExecutionState,
  ProgressReport,
} from '../contracts/execute-agent';
import {
  DATABASE_ACTIVITY_RETRY,
  failedWith,
  FAILURE_TYPES,
  refuseWith,
  storageFailure,
  type WorkflowFailure,
} from '../contracts/failures';
import { PlatformStatusKey } from '../contracts/search-attributes';
import {
  callbackTransition,
  cancelRefusal,
  executionRecord,
  finishedTransition,
  progressChanges,
  progressRefusal,
  queuedTransition,
  startedTransition,
} from '../domain/executions/steps';
import type { ExecutionEnding, ExecutionTransition } from '../domain/executions/steps';
import { unstorableRefusal } from '../domain/common/storable-text';
import { approvalWorkflow } from './approval';

type Activities = ReturnType<typeof createExecutionActivities>;

const { recordExecutionStep, projectExecution } = proxyLocalActivities<Activities>({
  startToCloseTimeout: '10 seconds',
  retry: DATABASE_ACTIVITY_RETRY,
});

/** The attempt an invocation or callback failure reports in its details. */
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
 * its callback_url receives the result, signed, with its own retries. A transition that cannot be stored
 * fails the execution: its last stored state is kept as failed, and the workflow fails with the reason.
 */
export async function executeAgentWorkflow(input: ExecuteAgentInput): Promise<ExecutionState> {
  const { execution_id } = input;
  const now = () => new Date().toISOString();
  const state = queuedExecution(input, new Date(workflowInfo().startTime).toISOString(), now());
  /** The state as recorded when the call was accepted: what the caller is answered with. */
  let accepted: ExecutionState | undefined = undefined;
  let approvalRequested = false;
  let finishedRecorded = false;
  let cancelRequest: CancelExecutionInput | undefined;
  /** The state as last stored, which a failure leaves in the read model. */
  let recorded: ExecutionState | undefined;
  let failure: WorkflowFailure | undefined;
  // The approval wait and the agent call run here, so a cancel stops whichever is under way.
  const work = new CancellationScope();

  setHandler(executionQuery, () => state);
  setHandler(approvalRequestedSignal, () => {
    approvalRequested = true;
  });
  // Accepted once queued and, when an approval is asked for, once that request is recorded too.
  setHandler(executionAcceptedUpdate, async () => {
    await condition(
      () =>
        (accepted !== undefined && (!input.approval || approvalRequested)) || finishedRecorded || failure !== undefined,
    );
    if (!accepted && failure) throw failedWith(failure);
    return accepted ?? state;
  });
  setHandler(
    cancelExecutionUpdate,
    async (request) => {
      cancelRequest = request;
      work.cancel();
      await condition(() => finishedRecorded || failure !== undefined);
      if (failure) throw failedWith(failure);
      refuseWith(
        FAILURE_TYPES.executionNotCancellable,
        state.status === 'cancelled'
          ? undefined
          : `Execution ${execution_id} ${state.status} before it could be cancelled`,
      );
      return state;
    },
    {
      validator: (request: CancelExecutionInput) => {
        refuseWith(FAILURE_TYPES.executionNotCancellable, cancelRefusal(state, cancelRequest !== undefined));
        refuseWith(FAILURE_TYPES.invalidData, unstorableRefusal(request, 'cancel'));
      },
    },
  );
  setHandler(
    progressUpdate,
    async (report) => {
      Object.assign(state, progressChanges(state, report), { version: state.version + 1, updated_at: now() });
      await projectExecution({ ...state }, input.organization_id).catch((error: unknown) => {
        const failed = storageFailure(error);
        throw failed ? failedWith(failed) : error;
      });
      return state;
    },
    {
      validator: (report: ProgressReport) => {
        refuseWith(
          FAILURE_TYPES.executionNotProcessing,
          progressRefusal(state, cancelRequest !== undefined, report.attempt),
        );
        refuseWith(FAILURE_TYPES.invalidData, unstorableRefusal(report, 'progress report'));
      },
    },
  );

  /** A transition: provenance, events and the projection, never cut short by a cancellation. */
  const step = (transition: ExecutionTransition) =>
    CancellationScope.nonCancellable(async () => {
      const at = now();
      Object.assign(state, transition.changes, { version: state.version + 1, updated_at: at });
      upsertSearchAttributes([{ key: PlatformStatusKey, value: state.status }]);
      const anchor = await recordExecutionStep({
        provenance: executionRecord(state, transition, at),
        state: { ...state },
        organization_id: input.organization_id,
      }).catch(async (error: unknown) => {
        throw await fail(error);
      });
      state.provenance_id = anchor.transaction_id;
      recorded = { ...state };
    });

  /** A transition could not be stored: the execution fails, and says why wherever it is read. */
  async function fail(error: unknown): Promise<unknown> {
    const failed = storageFailure(error);
    if (!failed) return error;
    failure = failed;
    const at = now();
    Object.assign(state, {
      status: 'failed',
      error_json: { ...failed },
      completed_at: at,
      version: state.version + 1,
      updated_at: at,
    });
    upsertSearchAttributes([{ key: PlatformStatusKey, value: state.status }]);
    if (recorded)
      await projectExecution(
        {
          ...recorded,
          status: 'failed',
          error_json: { ...failed },
          completed_at: at,
          version: state.version,
          updated_at: at,
        },
        input.organization_id,
      ).catch(() => undefined);
    await condition(allHandlersFinished);
    return failedWith(failed);
  }

  await step(queuedTransition(state));
  accepted = { ...state };

  const { invokeAgent } = proxyActivities<Activities>({
    startToCloseTimeout: input.agent.timeout_seconds * 1000 + 5000,
    heartbeatTimeout: input.heartbeat_timeout_ms,
    cancellationType: ActivityCancellationType.WAIT_CANCELLATION_COMPLETED,
    retry: retryPolicyOf(input.retry, input.max_attempts),
  });

  let ending: ExecutionEnding;
  try {
    ending = await work.run(async (): Promise<ExecutionEnding> => {
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
    else if (error instanceof ChildWorkflowFailure && input.approval) {
      const cause = error.cause instanceof ApplicationFailure ? error.cause : undefined;
      ending = {
        kind: 'approval_failed',
        approval_id: input.approval.approval_id,
        type: cause?.type ?? 'approval_failed',
        message: cause?.message ?? error.message,
      };
    } else if (error instanceof ActivityFailure) {
      const cause = error.cause instanceof ApplicationFailure ? error.cause : undefined;
      const details = cause?.details?.[0] as AttemptFailureDetails | undefined;
      ending = {
        kind: 'failed',
        type: cause?.type ?? undefined,
        message: cause?.message ?? error.message,
        attempt: attemptOf(error),
        status: details?.status,
      };
    } else throw error;
  }

  await step(finishedTransition(state, input.agent, ending, now()));
  finishedRecorded = true;

  if (input.callback) {
    const callback = input.callback;
    const { deliverCallback } = proxyActivities<Activities>({
      startToCloseTimeout: callback.timeout_ms + 5000,
      retry: retryPolicyOf(callback.retry, callback.max_attempts),
    });
    let outcome: { success: boolean; attempts: number; error?: string };
    try {
      const delivered = await CancellationScope.nonCancellable(() =>
        deliverCallback({
          execution_id,
          url: callback.url,
          requested_by: input.requested_by,
          organization_id: input.organization_id,
          timeout_ms: callback.timeout_ms,
          event: `execution.${state.status}`,
          execution: { ...state },
        }),
      );
      outcome = { success: true, attempts: delivered.attempt };
    } catch (error) {
      if (!(error instanceof ActivityFailure)) throw error;
      outcome = {
        success: false,
        attempts: attemptOf(error) ?? callback.max_attempts,
        error: error.cause?.message ?? error.message,
      };
    }
    await step(callbackTransition(callback.url, outcome));
  }

  await condition(allHandlersFinished);
  return state;
}

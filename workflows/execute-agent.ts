import { allHandlersFinished, CancellationScope, condition, isCancellation, setHandler } from '@temporalio/workflow';
import { approvalRequestedSignal } from '../contracts/approval';
import {
  cancelExecutionUpdate,
  executionAcceptedUpdate,
  executionQuery,
  progressUpdate,
  type CancelExecutionInput,
  type ExecuteAgentInput,
  type ExecutionState,
  type ProgressReport,
} from '../contracts/execute-agent';
import { FAILURE_TYPES, refuseWith } from '../contracts/failures';
import { unstorableRefusal } from '../domain/common/storable-text';
import {
  cancelRefusal,
  finishedTransition,
  progressRefusal,
  queuedTransition,
  type ExecutionEnding,
} from '../domain/executions/steps';
import {
  callAgent,
  callBack,
  cancelled,
  executionState,
  failedEnding,
  now,
  recordProgress,
  recordStep,
} from './execute-agent-steps';

/**
 * One asynchronous agent call: queued → processing → completed | failed | cancelled. When the agent's
 * policy wants it, the call first waits for its approval (a child approval workflow). The agent is called
 * over HTTP by an activity whose retry policy is the execution's (max_attempts and backoff); the agent
 * reports progress through the API, which delivers it here as an Update. When the execution finishes,
 * its callback_url receives the result, signed, with its own retries. A transition that cannot be stored
 * fails the execution: its last stored state is kept as failed, and the workflow fails with the reason.
 */
export async function executeAgentWorkflow(input: ExecuteAgentInput): Promise<ExecutionState> {
  const execution = executionState(input);
  const { state } = execution;
  /** The state as recorded when the call was accepted: what the caller is answered with. */
  let accepted: ExecutionState | undefined = undefined;
  let approvalRequested = false;
  let finished = false;
  let cancelRequest: CancelExecutionInput | undefined;
  // The approval wait and the agent call run here, so a cancel stops whichever is under way.
  const work = new CancellationScope();

  setHandler(executionQuery, () => state);
  setHandler(approvalRequestedSignal, () => {
    approvalRequested = true;
  });
  // Accepted once queued and, when an approval is asked for, once that request is recorded too.
  setHandler(executionAcceptedUpdate, async () => {
    const acceptedInFull = () => accepted !== undefined && (!input.approval || approvalRequested);
    await condition(() => acceptedInFull() || finished || execution.failure !== undefined);
    if (!accepted) execution.throwIfFailed();
    return accepted ?? state;
  });
  setHandler(
    cancelExecutionUpdate,
    async (request) => {
      cancelRequest = request;
      work.cancel();
      await condition(() => finished || execution.failure !== undefined);
      execution.throwIfFailed();
      return cancelled(state);
    },
    {
      validator: (request: CancelExecutionInput) => {
        refuseWith(FAILURE_TYPES.executionNotCancellable, cancelRefusal(state, cancelRequest !== undefined));
        refuseWith(FAILURE_TYPES.invalidData, unstorableRefusal(request, 'cancel'));
      },
    },
  );
  setHandler(progressUpdate, (report) => recordProgress(execution, input, report), {
    validator: (report: ProgressReport) => {
      const cancelling = cancelRequest !== undefined;
      refuseWith(FAILURE_TYPES.executionNotProcessing, progressRefusal(state, cancelling, report.attempt));
      refuseWith(FAILURE_TYPES.invalidData, unstorableRefusal(report, 'progress report'));
    },
  });

  await recordStep(execution, input, queuedTransition(state));
  accepted = { ...state };
  let ending: ExecutionEnding;
  try {
    ending = await work.run(() => callAgent(execution, input));
  } catch (error) {
    ending = isCancellation(error) ? { kind: 'cancelled', request: cancelRequest } : failedEnding(error, input);
  }
  await recordStep(execution, input, finishedTransition(state, input.agent, ending, now()));
  finished = true;
  if (input.callback) await recordStep(execution, input, await callBack(input, input.callback, state));

  await condition(allHandlersFinished);
  return state;
}

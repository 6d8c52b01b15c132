import {
  allHandlersFinished,
  CancellationScope,
  condition,
  getExternalWorkflowHandle,
  isCancellation,
  proxyLocalActivities,
  setHandler,
  upsertSearchAttributes,
  workflowInfo,
} from '@temporalio/workflow';
import type { createApprovalActivities } from '../activities/approvals';
import { approvalCreatedUpdate, approvalQuery, approvalRequestedSignal, cancelApprovalUpdate, respondUpdate } from '../contracts/approval';
import type { ApprovalRequest, ApprovalState, CancelApprovalInput, RespondInput } from '../contracts/approval';
import { DATABASE_ACTIVITY_RETRY, failedWith, FAILURE_TYPES, refuseWith, storageFailure, type WorkflowFailure } from '../contracts/failures';
import { PlatformStatusKey } from '../contracts/search-attributes';
import { answerRefusal, approvalRecord, endedTransition, requestedTransition, type ApprovalEnding, type ApprovalTransition } from '../domain/approval-steps';
import { unstorableRefusal } from '../domain/storable-text';

const { recordApprovalStep, projectApproval } = proxyLocalActivities<ReturnType<typeof createApprovalActivities>>({
  startToCloseTimeout: '10 seconds',
  retry: DATABASE_ACTIVITY_RETRY,
});

/**
 * One approval request: pending until a human approves or rejects it (respond Update), someone cancels it
 * (cancel Update, or cancellation of the workflow, e.g. by the execution that asked), or its deadline passes
 * (a durable timer, so it expires even when no worker was up at that instant). Each transition is a
 * provenance record and an event; a second answer is refused by the Updates' validators. A transition
 * that cannot be stored fails the request: its last stored state is kept as failed, waiting callers are
 * refused with the failure, and the workflow fails with it.
 */
export async function approvalWorkflow(request: ApprovalRequest): Promise<ApprovalState> {
  const { approval_id } = request;
  const deadline = Date.parse(request.expires_at);
  const now = () => new Date().toISOString();
  const state: ApprovalState = { ...request, version: 0, status: 'pending', created_at: new Date(workflowInfo().startTime).toISOString(), updated_at: now() };
  let recordedVersion = 0;
  /** The request as first recorded: what its creator is answered with. */
  let requested: ApprovalState | undefined = undefined;
  /** The state as last stored, which a failure leaves in the read model. */
  let recorded: ApprovalState | undefined = undefined;
  let failure: WorkflowFailure | undefined;
  let answer: Extract<ApprovalEnding, { kind: 'respond' | 'cancel' }> | undefined;

  const mustBePending = (input: RespondInput | CancelApprovalInput) => {
    refuseWith(FAILURE_TYPES.approvalNotPending, answerRefusal(state, answer !== undefined, Date.now(), deadline));
    refuseWith(FAILURE_TYPES.invalidData, unstorableRefusal(input, 'answer'));
  };
  const settled = async () => {
    await condition(() => failure !== undefined || (state.status !== 'pending' && recordedVersion === state.version));
    if (failure) throw failedWith(failure);
  };

  setHandler(approvalQuery, () => state);
  setHandler(approvalCreatedUpdate, async () => {
    await condition(() => requested !== undefined || failure !== undefined);
    if (failure) throw failedWith(failure);
    return requested!;
  });
  setHandler(
    respondUpdate,
    async (input) => {
      answer = { kind: 'respond', input };
      await settled();
      return state;
    },
    { validator: (input: RespondInput) => mustBePending(input) },
  );
  setHandler(
    cancelApprovalUpdate,
    async (input) => {
      answer = { kind: 'cancel', input };
      await settled();
      return state;
    },
    { validator: (input: CancelApprovalInput) => mustBePending(input) },
  );

  async function step(transition: ApprovalTransition): Promise<void> {
    const at = now();
    Object.assign(state, transition.changes, { version: state.version + 1, updated_at: at });
    upsertSearchAttributes([{ key: PlatformStatusKey, value: state.status }]);
    const anchor = await recordApprovalStep({ provenance: approvalRecord(request, state, transition, at), state: { ...state } }).catch(async (error: unknown) => {
      throw await fail(error);
    });
    state.provenance_id = anchor.transaction_id;
    recordedVersion = state.version;
    recorded = { ...state };
  }

  /** A transition could not be stored: the request fails, and says why wherever it is read. */
  async function fail(error: unknown): Promise<unknown> {
    const failed = storageFailure(error);
    if (!failed) return error;
    failure = failed;
    Object.assign(state, { status: 'failed', failure, version: state.version + 1, updated_at: now() });
    upsertSearchAttributes([{ key: PlatformStatusKey, value: state.status }]);
    if (recorded) await projectApproval({ ...recorded, status: 'failed', failure, version: state.version, updated_at: state.updated_at }).catch(() => undefined);
    await condition(allHandlersFinished);
    return failedWith(failure);
  }

  await step(requestedTransition(request));
  requested = { ...state };
  const parent = workflowInfo().parent;
  if (parent && request.execution_id === parent.workflowId) {
    // An execution that has already closed no longer waits for this; the request stands on its own.
    await getExternalWorkflowHandle(parent.workflowId)
      .signal(approvalRequestedSignal, approval_id)
      .catch(() => undefined);
  }

  try {
    // Whatever the timer says, an answer its validator accepted (before the deadline) stands.
    await condition(() => answer !== undefined, Math.max(1, deadline - Date.now()));
  } catch (error) {
    if (!isCancellation(error)) throw error;
    await CancellationScope.nonCancellable(() => step(endedTransition(request, { kind: 'workflow_cancelled' }, now())));
    throw error;
  }
  await step(endedTransition(request, answer ?? { kind: 'expired' }, now()));

  await condition(allHandlersFinished);
  return state;
}

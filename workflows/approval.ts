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
import { FAILURE_TYPES, refuseWith } from '../contracts/failures';
import { PlatformStatusKey } from '../contracts/search-attributes';
import { answerRefusal, approvalRecord, endedTransition, requestedTransition, type ApprovalEnding, type ApprovalTransition } from '../domain/approval-steps';

const { recordApprovalStep } = proxyLocalActivities<ReturnType<typeof createApprovalActivities>>({
  startToCloseTimeout: '10 seconds',
  retry: { initialInterval: '100 ms', maximumInterval: '10 seconds' },
});

/**
 * One approval request: pending until a human approves or rejects it (respond Update), someone cancels it
 * (cancel Update, or cancellation of the workflow, e.g. by the execution that asked), or its deadline passes
 * (a durable timer, so it expires even when no worker was up at that instant). Each transition is a
 * provenance record and an event; a second answer is refused by the Updates' validators.
 */
export async function approvalWorkflow(request: ApprovalRequest): Promise<ApprovalState> {
  const { approval_id } = request;
  const deadline = Date.parse(request.expires_at);
  const now = () => new Date().toISOString();
  const state: ApprovalState = { ...request, version: 0, status: 'pending', created_at: new Date(workflowInfo().startTime).toISOString(), updated_at: now() };
  let recordedVersion = 0;
  /** The request as first recorded: what its creator is answered with. */
  let requested: ApprovalState | undefined = undefined;
  let answer: Extract<ApprovalEnding, { kind: 'respond' | 'cancel' }> | undefined;

  const mustBePending = () => refuseWith(FAILURE_TYPES.approvalNotPending, answerRefusal(state, answer !== undefined, Date.now(), deadline));
  const settled = () => condition(() => state.status !== 'pending' && recordedVersion === state.version);

  setHandler(approvalQuery, () => state);
  setHandler(approvalCreatedUpdate, async () => {
    await condition(() => requested !== undefined);
    return requested!;
  });
  setHandler(
    respondUpdate,
    async (input) => {
      answer = { kind: 'respond', input };
      await settled();
      return state;
    },
    { validator: (_input: RespondInput) => mustBePending() },
  );
  setHandler(
    cancelApprovalUpdate,
    async (input) => {
      answer = { kind: 'cancel', input };
      await settled();
      return state;
    },
    { validator: (_input: CancelApprovalInput) => mustBePending() },
  );

  async function step(transition: ApprovalTransition): Promise<void> {
    const at = now();
    Object.assign(state, transition.changes, { version: state.version + 1, updated_at: at });
    upsertSearchAttributes([{ key: PlatformStatusKey, value: state.status }]);
    const anchor = await recordApprovalStep({ provenance: approvalRecord(request, state, transition, at), state: { ...state } });
    state.provenance_id = anchor.transaction_id;
    recordedVersion = state.version;
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

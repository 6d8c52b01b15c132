import {
  allHandlersFinished,
  CancellationScope,
  condition,
  getExternalWorkflowHandle,
  isCancellation,
  patched,
  proxyLocalActivities,
  setHandler,
  workflowInfo,
} from '@temporalio/workflow';
import type { createApprovalActivities } from '../activities/approvals';
import {
  approvalCreatedUpdate,
  approvalEndedSignal,
  approvalQuery,
  approvalRequestedSignal,
  cancelApprovalUpdate,
  respondUpdate,
} from '../contracts/approval';
import type { ApprovalRequest, ApprovalState, CancelApprovalInput, RespondInput } from '../contracts/approval';
import { DATABASE_ACTIVITY_RETRY, FAILURE_TYPES, refuseWith } from '../contracts/failures';
import { PlatformStatusKey } from '../contracts/search-attributes';
import {
  answerRefusal,
  approvalRecord,
  endedTransition,
  requestedTransition,
  type ApprovalEnding,
  type ApprovalTransition,
} from '../domain/approvals/steps';
import { unstorableRefusal } from '../domain/common/storable-text';
import { notifyPerson } from './notify';
import { RecordedState } from './recorded-state';

const { recordApprovalStep, claimApprovalEnding, projectApproval } = proxyLocalActivities<
  ReturnType<typeof createApprovalActivities>
>({
  startToCloseTimeout: '10 seconds',
  retry: DATABASE_ACTIVITY_RETRY,
});

/** Workflows that took this path end by a claim in Postgres at their deadline or cancellation. */
const CLAIMED_ENDINGS = 'approval-endings-claimed';

const now = () => new Date().toISOString();

/** An answer brought by an Update rather than claimed in Postgres. */
type Answer = Extract<ApprovalEnding, { kind: 'respond' | 'cancel' }>;

/**
 * One approval request: pending until a human approves or rejects it or someone cancels it (claimed in
 * Postgres by the approvals service, then told by approvalEndedSignal), the workflow is cancelled (e.g. by
 * the execution that asked), or its deadline passes (a durable timer, so it expires even when no worker
 * was up at that instant). The workflow's own endings go through the same conditional write as an answer,
 * so whichever comes first stands. Each transition is a provenance record and an event. A transition
 * that cannot be stored fails the request: its last stored state is kept as failed, waiting callers are
 * refused with the failure, and the workflow fails with it. `opened`: the request was recorded before
 * the start (POST /v1/approvals); without it the workflow records it. A deadline does what the request's
 * on_expiry says (domain/approvals/expiry.ts): an escalation or a hold leaves it pending, waiting again.
 */
export async function approvalWorkflow(request: ApprovalRequest, opened?: ApprovalState): Promise<ApprovalState> {
  const approval = approvalState(request, opened);
  const { state } = approval;
  /** The request as first recorded: what its creator is answered with. */
  let requested: ApprovalState | undefined = undefined;
  let answer: Answer | undefined;
  /** The ending claimed in Postgres, as recorded there. */
  let ended: ApprovalState | undefined;

  const mustBePending = (input: RespondInput | CancelApprovalInput) => {
    const answering = answer !== undefined || ended !== undefined;
    const deadline = state.expiry_outcome === 'held' ? Infinity : Date.parse(state.expires_at);
    refuseWith(FAILURE_TYPES.approvalNotPending, answerRefusal(state, answering, Date.now(), deadline));
    refuseWith(FAILURE_TYPES.invalidData, unstorableRefusal(input, 'answer'));
  };
  /** Takes the answer for the main loop, and replies once the request has ended with it (or another) on record. */
  const answered = async (given: Answer) => {
    answer = given;
    await condition(() => approval.failure !== undefined || (state.status !== 'pending' && approval.isRecorded));
    approval.throwIfFailed();
    return state;
  };

  setHandler(approvalQuery, () => state);
  setHandler(approvalEndedSignal, (claimed) => {
    ended ??= claimed;
  });
  setHandler(approvalCreatedUpdate, async () => {
    await condition(() => requested !== undefined || approval.failure !== undefined);
    approval.throwIfFailed();
    return requested!;
  });
  setHandler(respondUpdate, (input) => answered({ kind: 'respond', input }), { validator: mustBePending });
  setHandler(cancelApprovalUpdate, (input) => answered({ kind: 'cancel', input }), { validator: mustBePending });

  if (!opened) await recordStep(approval, request, requestedTransition(request));
  requested = { ...state };
  await tellParent(request);
  if (request.approver_passport_id)
    notifyPerson({
      kind: 'approval',
      organization_id: request.organization_id,
      item_id: request.approval_id,
      approver: request.approver_passport_id,
    });

  // A deadline may leave the request pending (escalated to its next approver, or held open): it waits again.
  do {
    try {
      // Whatever the timer says, an answer its validator accepted (before the deadline) stands.
      const settled = () => answer !== undefined || ended !== undefined;
      if (state.expiry_outcome === 'held') await condition(settled);
      else await condition(settled, Math.max(1, Date.parse(state.expires_at) - Date.now()));
    } catch (error) {
      if (!isCancellation(error)) throw error;
      // Its own cancellation ends it, claimed like an answer; an ending claimed first stands instead.
      if (ended) approval.adopt(ended);
      else await CancellationScope.nonCancellable(() => endItself(approval, request, 'workflow_cancelled'));
      throw error;
    }
    if (ended) approval.adopt(ended);
    else if (answer) await recordStep(approval, request, endedTransition(request, answer, now()));
    else await endItself(approval, request, 'expired');
  } while (state.status === 'pending');

  await condition(allHandlersFinished);
  return state;
}

/** The request pending, or as it was recorded before the start. */
function approvalState(request: ApprovalRequest, opened: ApprovalState | undefined): RecordedState<ApprovalState> {
  const approval = new RecordedState<ApprovalState>(
    {
      ...request,
      version: 0,
      status: 'pending',
      created_at: new Date(workflowInfo().startTime).toISOString(),
      updated_at: now(),
    },
    {
      failedChanges: (failure) => ({ status: 'failed', failure }),
      projectFailed: projectApproval,
      searchAttributes: (state) => [{ key: PlatformStatusKey, value: state.status }],
    },
  );
  if (opened) approval.resume(opened);
  return approval;
}

/** A transition: its provenance record and event, and the read model with the record's id. */
async function recordStep(
  approval: RecordedState<ApprovalState>,
  request: ApprovalRequest,
  transition: ApprovalTransition,
): Promise<void> {
  const at = now();
  approval.change(transition.changes, at);
  await approval.record(
    (state) => recordApprovalStep({ provenance: approvalRecord(request, approval.state, transition, at), state }),
    (anchor) => {
      approval.state.provenance_id = anchor.transaction_id;
    },
  );
}

/** The workflow's own ending, claimed like an answer; an answer that came first stands instead. */
async function endItself(
  approval: RecordedState<ApprovalState>,
  request: ApprovalRequest,
  ending: 'expired' | 'workflow_cancelled',
): Promise<void> {
  if (patched(CLAIMED_ENDINGS))
    approval.adopt(await approval.stored(claimApprovalEnding({ request, ending, at: now() })));
  else await recordStep(approval, request, endedTransition(request, { kind: ending }, now()));
}

/** Tells the execution that asked (when it is the parent) that the request is recorded. */
async function tellParent(request: ApprovalRequest): Promise<void> {
  const parent = workflowInfo().parent;
  if (!parent || request.execution_id !== parent.workflowId) return;
  // An execution that has already closed no longer waits for this; the request stands on its own.
  await getExternalWorkflowHandle(parent.workflowId)
    .signal(approvalRequestedSignal, request.approval_id)
    .catch(() => undefined);
}

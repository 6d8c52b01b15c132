import {
  allHandlersFinished,
  CancellationScope,
  condition,
  getExternalWorkflowHandle,
  isCancellation,
  patched,
  proxyLocalActivities,
  setHandler,
  upsertSearchAttributes,
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
  answerRefusal,
  approvalRecord,
  endedTransition,
  requestedTransition,
  type ApprovalEnding,
  type ApprovalTransition,
} from '../domain/approvals/steps';
import { unstorableRefusal } from '../domain/common/storable-text';

const { recordApprovalStep, claimApprovalEnding, projectApproval } = proxyLocalActivities<
  ReturnType<typeof createApprovalActivities>
>({
  startToCloseTimeout: '10 seconds',
  retry: DATABASE_ACTIVITY_RETRY,
});

/** Workflows that took this path end by a claim in Postgres at their deadline or cancellation. */
const CLAIMED_ENDINGS = 'approval-endings-claimed';

/**
 * One approval request: pending until a human approves or rejects it or someone cancels it (claimed in
 * Postgres by the approvals service, then told by approvalEndedSignal), the workflow is cancelled (e.g. by
 * the execution that asked), or its deadline passes (a durable timer, so it expires even when no worker
 * was up at that instant). The workflow's own endings go through the same conditional write as an answer,
 * so whichever comes first stands. Each transition is a provenance record and an event. A transition
 * that cannot be stored fails the request: its last stored state is kept as failed, waiting callers are
 * refused with the failure, and the workflow fails with it. `opened`: the request was recorded before
 * the start (POST /v1/approvals); without it the workflow records it.
 */
export async function approvalWorkflow(request: ApprovalRequest, opened?: ApprovalState): Promise<ApprovalState> {
  const { approval_id } = request;
  const deadline = Date.parse(request.expires_at);
  const now = () => new Date().toISOString();
  const state: ApprovalState = {
    ...request,
    version: 0,
    status: 'pending',
    created_at: new Date(workflowInfo().startTime).toISOString(),
    updated_at: now(),
  };
  let recordedVersion = 0;
  /** The request as first recorded: what its creator is answered with. */
  let requested: ApprovalState | undefined = undefined;
  /** The state as last stored, which a failure leaves in the read model. */
  let recorded: ApprovalState | undefined = undefined;
  let failure: WorkflowFailure | undefined;
  let answer: Extract<ApprovalEnding, { kind: 'respond' | 'cancel' }> | undefined;
  /** The ending claimed in Postgres, as recorded there. */
  let ended: ApprovalState | undefined;

  const mustBePending = (input: RespondInput | CancelApprovalInput) => {
    refuseWith(
      FAILURE_TYPES.approvalNotPending,
      answerRefusal(state, answer !== undefined || ended !== undefined, Date.now(), deadline),
    );
    refuseWith(FAILURE_TYPES.invalidData, unstorableRefusal(input, 'answer'));
  };
  const settled = async () => {
    await condition(() => failure !== undefined || (state.status !== 'pending' && recordedVersion === state.version));
    if (failure) throw failedWith(failure);
  };

  setHandler(approvalQuery, () => state);
  setHandler(approvalEndedSignal, (approval) => {
    ended ??= approval;
  });
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
    const anchor = await recordApprovalStep({
      provenance: approvalRecord(request, state, transition, at),
      state: { ...state },
    }).catch(async (error: unknown) => {
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
    if (recorded)
      await projectApproval({
        ...recorded,
        status: 'failed',
        failure,
        version: state.version,
        updated_at: state.updated_at,
      }).catch(() => undefined);
    await condition(allHandlersFinished);
    return failedWith(failure);
  }

  /** Takes the state a claim in Postgres recorded. */
  const adopt = (approval: ApprovalState) => {
    Object.assign(state, approval);
    recordedVersion = state.version;
    recorded = { ...state };
    upsertSearchAttributes([{ key: PlatformStatusKey, value: state.status }]);
  };
  /** The workflow's own ending, claimed like an answer; an answer that came first stands instead. */
  const claimEnding = async (ending: 'expired' | 'workflow_cancelled') => {
    adopt(
      await claimApprovalEnding({ request, ending, at: now() }).catch(async (error: unknown) => {
        throw await fail(error);
      }),
    );
  };

  if (opened) {
    Object.assign(state, opened);
    recordedVersion = state.version;
    recorded = { ...state };
  } else {
    await step(requestedTransition(request));
  }
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
    await condition(() => answer !== undefined || ended !== undefined, Math.max(1, deadline - Date.now()));
  } catch (error) {
    if (!isCancellation(error)) throw error;
    if (ended) adopt(ended);
    else
      await CancellationScope.nonCancellable(() =>
        patched(CLAIMED_ENDINGS)
          ? claimEnding('workflow_cancelled')
          : step(endedTransition(request, { kind: 'workflow_cancelled' }, now())),
      );
    throw error;
  }
  if (ended) adopt(ended);
  else if (answer) await step(endedTransition(request, answer, now()));
  else if (patched(CLAIMED_ENDINGS)) await claimEnding('expired');
  else await step(endedTransition(request, { kind: 'expired' }, now()));

  await condition(allHandlersFinished);
  return state;
}

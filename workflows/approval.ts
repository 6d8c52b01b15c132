import {
  allHandlersFinished,
  ApplicationFailure,
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
import {
  approvalCreatedUpdate,
  approvalQuery,
  approvalRequestedSignal,
  cancelApprovalUpdate,
  respondUpdate,
  type ApprovalRequest,
  type ApprovalState,
  type CancelApprovalInput,
  type RespondInput,
} from '../contracts/approval';
import { FAILURE_TYPES } from '../contracts/failures';
import { PlatformStatusKey } from '../contracts/search-attributes';
import type { EventKind } from '../domain/events';
import { ORCH_CORE_DID, type ProvenanceActor } from '../domain/provenance';

const { recordApprovalStep } = proxyLocalActivities<ReturnType<typeof createApprovalActivities>>({
  startToCloseTimeout: '10 seconds',
  retry: { initialInterval: '100 ms', maximumInterval: '10 seconds' },
});

function eventData(state: ApprovalState): Record<string, unknown> {
  return {
    approval_id: state.approval_id,
    status: state.status,
    org_did: state.org_did ?? null,
    task_id: state.task_id ?? null,
    agent_id: state.agent_id ?? null,
    execution_id: state.execution_id ?? null,
    requester_passport_id: state.requester_passport_id,
    approver_passport_id: state.approver_passport_id ?? null,
    risk_level: state.risk_level,
    expires_at: state.expires_at,
    ...(state.responded_by ? { responded_by: state.responded_by, modified_params: state.modified_params ?? null } : {}),
    ...(state.cancelled_by ? { cancelled_by: state.cancelled_by, reason: state.cancel_reason ?? null } : {}),
  };
}

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
  let answer: { kind: 'respond'; input: RespondInput } | { kind: 'cancel'; input: CancelApprovalInput } | undefined;

  const notPending = (message: string) => ApplicationFailure.create({ type: FAILURE_TYPES.approvalNotPending, message, nonRetryable: true });
  // The clock check covers a deadline that has passed while its timer has not been processed yet (no worker
  // was up at the deadline): the request is expired, whatever arrives first when a worker comes back.
  const mustBePending = () => {
    if (answer) throw notPending(`Approval ${approval_id} is already being answered`);
    if (state.status !== 'pending') throw notPending(`Approval ${approval_id} is ${state.status}, not pending`);
    if (Date.now() >= deadline) throw notPending(`Approval ${approval_id} expired at ${request.expires_at}`);
  };
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

  async function step(step_id: string, actor: ProvenanceActor, action: string, reasoning: string, event: EventKind, changes: Partial<ApprovalState>): Promise<void> {
    const at = now();
    Object.assign(state, changes, { version: state.version + 1, updated_at: at });
    upsertSearchAttributes([{ key: PlatformStatusKey, value: state.status }]);
    const anchor = await recordApprovalStep({
      provenance: {
        entry: { subject_id: approval_id, step_id, timestamp: at, actor, action, input_data: { ...request }, output_data: { status: state.status, ...changes }, reasoning },
        events: [{ event, data: eventData(state) }],
      },
      state: { ...state },
    });
    state.provenance_id = anchor.transaction_id;
    recordedVersion = state.version;
  }

  await step(
    'requested',
    request.agent_id ? { type: 'ai_agent', agent_id: request.agent_id, did: request.requester_passport_id } : { type: 'human', did: request.requester_passport_id },
    'approval_requested',
    `${request.requester_passport_id} asks ${request.approver_passport_id ?? 'an approver'} to approve: ${request.action_description}`,
    'approval.requested',
    {},
  );
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
    const by = request.execution_id ?? request.workflow_id;
    await CancellationScope.nonCancellable(() =>
      step('cancelled', { type: 'orch_core', did: ORCH_CORE_DID }, 'approval_cancelled', 'The workflow was cancelled', 'approval.cancelled', {
        status: 'cancelled',
        cancelled_by: ORCH_CORE_DID,
        cancel_reason: by ? `${by} was cancelled` : 'cancelled in Temporal',
        responded_at: now(),
      }),
    );
    throw error;
  }

  if (answer?.kind === 'respond') {
    const { input } = answer;
    await step(
      'responded',
      { type: 'human', did: input.responded_by },
      `approval_${input.decision}`,
      input.comment ?? `${input.responded_by} ${input.decision} the request (${input.response_kind}; caller ${input.principal})`,
      input.decision === 'approved' ? 'approval.approved' : 'approval.rejected',
      {
        status: input.decision,
        responded_by: input.responded_by,
        response_kind: input.response_kind,
        responded_at: now(),
        ...(input.comment !== undefined ? { response_comment: input.comment } : {}),
        ...(input.modified_params !== undefined ? { modified_params: input.modified_params } : {}),
      },
    );
  } else if (answer?.kind === 'cancel') {
    const { input } = answer;
    await step('cancelled', { type: 'human', did: input.cancelled_by }, 'approval_cancelled', input.reason ?? `${input.cancelled_by} cancelled the request (caller ${input.principal})`, 'approval.cancelled', {
      status: 'cancelled',
      cancelled_by: input.cancelled_by,
      responded_at: now(),
      ...(input.reason !== undefined ? { cancel_reason: input.reason } : {}),
    });
  } else {
    await step('expired', { type: 'orch_core', did: ORCH_CORE_DID }, 'approval_expired', `No answer by ${request.expires_at}`, 'approval.expired', { status: 'expired' });
  }

  await condition(allHandlersFinished);
  return state;
}

import type { ApprovalState } from '../../contracts/approval';
import { FAILURE_TYPES } from '../../contracts/failures';
import { unstorableRefusal } from '../../domain/common/storable-text';
import type { HumanActRefusal } from '../../domain/identity/human-acts';
import { recordApprovalAnswered } from '../observability/metrics';
import { refusedWrite, StorageRefusedError, type StorageRefusal } from '../platform/refusals';
import { deliverAfterCommit } from '../workflow-starts/signals';
import type { FieldProblem, PlatformServiceDeps } from './approvals';
import { claimAnswer, type AnswerStep } from './claims';

export type AnswerOutcome =
  | { ok: true; approval: ApprovalState }
  | { ok: false; code: 'approval_not_found' | 'approval_not_pending'; detail: string }
  | { ok: false; code: 'invalid_modified_params'; errors: FieldProblem[] }
  | HumanActRefusal
  | { ok: false; code: 'requester_may_not_answer'; detail: string }
  | ({ ok: false } & StepRefusal)
  | StorageRefusal;

/** Why a step was refused on the request as it stood when claimed: a quorum vote by someone holding no seat, or a second vote. */
export type StepRefusal = { code: 'not_the_approver' | 'already_voted'; detail: string };

/**
 * Claims one step a person takes on the request (an answer, a cancel, a quorum vote), refusing what cannot be
 * stored, and answers with the request as the claim left it or why it was refused.
 */
export async function claimStep(
  deps: PlatformServiceDeps,
  read: ApprovalState,
  given: unknown,
  step: AnswerStep<StepRefusal>,
  at: string,
): Promise<AnswerOutcome> {
  const approvalId = read.approval_id;
  const unstorable = unstorableRefusal(given, 'answer');
  if (unstorable) return { ok: false, code: FAILURE_TYPES.invalidData, detail: unstorable };
  let claimed: Awaited<ReturnType<typeof claimAnswer<StepRefusal>>>;
  try {
    claimed = await claimAnswer(deps.db, read, step, at);
  } catch (error) {
    const refused = refusedWrite(error);
    if (refused instanceof StorageRefusedError) return refused.refusal;
    throw refused;
  }
  if (!claimed.claimed) {
    if ('refused' in claimed) return { ok: false, ...claimed.refused };
    const { approval } = claimed;
    if (!approval) return { ok: false, code: 'approval_not_found', detail: `No approval request ${approvalId}` };
    const detail =
      approval.status === 'pending'
        ? `Approval ${approvalId} expired at ${approval.expires_at}`
        : `Approval ${approvalId} is ${approval.status}, not pending`;
    return { ok: false, code: 'approval_not_pending', detail };
  }
  if (claimed.approval.status !== 'pending') recordApprovalAnswered(claimed.approval);
  if (claimed.signal) deliverAfterCommit(deps, claimed.signal);
  return { ok: true, approval: claimed.approval };
}

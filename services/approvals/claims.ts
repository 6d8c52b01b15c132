import type { Knex } from 'knex';
import { approvalFromRow, claimApprovalAnswer, claimApprovalEnding, findApprovalToEnd } from '../../db/approvals';
import { appendProvenance, ledgerAppendCall, transactionIdFor } from '../../db/ledger';
import type { PendingSignal } from '../../db/workflow-starts';
import { expiryTransition, nextDeadlineMs, takesAnswersAt } from '../../domain/approvals/expiry';
import { approvalRecord, type ApprovalTransition } from '../../domain/approvals/steps';
import { approvalEndedSignal, type ApprovalRequest, type ApprovalState } from '../../contracts/approval';

export type ClaimOutcome =
  /** This ending won: the request as it recorded it. */
  | { claimed: true; approval: ApprovalState; signal?: PendingSignal }
  /** Another ending (or the deadline) came first: the request as it stands, if it exists. */
  | { claimed: false; approval: ApprovalState | undefined };

/** The request an approval's state was opened with: what its provenance records carry as input. */
export function requestOf(approval: ApprovalState): ApprovalRequest {
  const {
    version: _version,
    status: _status,
    responded_by: _respondedBy,
    response_comment: _comment,
    modified_params: _modified,
    response_kind: _kind,
    cancelled_by: _cancelledBy,
    cancel_reason: _cancelReason,
    provenance_id: _provenance,
    failure: _failure,
    created_at: _created,
    responded_at: _responded,
    updated_at: _updated,
    votes: _votes,
    approvals_needed: _needed,
    escalation_level: _level,
    expiry_outcome: _outcome,
    ...request
  } = approval;
  return request;
}

/**
 * Claims the ending of a request (an answer, a cancel, the expiry) in one transaction: the conditional
 * update that only a pending request takes, and the transition's provenance record with its event: the
 * workflow's own endings (its expiry, its cancellation), which it carries on itself.
 */
export async function claimEnding(
  db: Knex,
  approvalId: string,
  transition: ApprovalTransition,
  at: string,
  options: { before_deadline: boolean },
): Promise<ClaimOutcome> {
  return db.transaction(async (trx) => {
    const row = await claimApprovalEnding(trx, approvalId, {
      changes: transition.changes,
      provenance_id: transactionIdFor(approvalId, transition.step_id),
      updated_at: at,
      before_deadline: options.before_deadline,
    });
    if (!row) {
      const current = await findApprovalToEnd(trx, approvalId);
      return { claimed: false, approval: current && approvalFromRow(current) };
    }
    const approval = approvalFromRow(row);
    await appendProvenance(trx, {
      ...approvalRecord(requestOf(approval), approval, transition, at),
      organization_id: approval.organization_id,
    });
    return { claimed: true, approval };
  });
}

/** A step claimed on the request as it stands, or why it may not be (a vote by someone who has voted meanwhile). */
export type AnswerStep<R> = (current: ApprovalState) => { transition: ApprovalTransition } | { refused: R };

/**
 * Claims a human's answer, cancel or quorum vote on the request as the caller read it, in one statement: the
 * conditional update (pending, taking answers, still the version read), the step's provenance record with its
 * event, and, when the step ends the request, the ended signal to its workflow; all or nothing. The step is
 * built from the request it is claimed on, which the version guard makes the one it changes. A request changed
 * since it was read (still pending: another vote, say) is read again and the step built and claimed again.
 */
export async function claimAnswer<R>(
  db: Knex,
  read: ApprovalState,
  step: AnswerStep<R>,
  at: string,
): Promise<ClaimOutcome | { claimed: false; refused: R }> {
  let current: ApprovalState | undefined = read;
  for (let attempt = 0; attempt < 3 && current?.status === 'pending'; attempt += 1) {
    const built = step(current);
    if ('refused' in built) return { claimed: false, refused: built.refused };
    const { transition } = built;
    const provenance_id = transactionIdFor(current.approval_id, transition.step_id);
    const changed: ApprovalState = {
      ...current,
      ...transition.changes,
      version: current.version + 1,
      provenance_id,
      updated_at: at,
    };
    const signal: PendingSignal | undefined =
      changed.status === 'pending'
        ? undefined
        : { workflow_id: current.approval_id, signal_name: approvalEndedSignal.name, args: [changed] };
    const record = approvalRecord(requestOf(current), changed, transition, at);
    const row = await claimApprovalAnswer(db, current.approval_id, {
      changes: transition.changes,
      provenance_id,
      updated_at: at,
      read_version: current.version,
      append_bindings: ledgerAppendCall([{ ...record, organization_id: current.organization_id }]).bindings,
      signal: signal && { name: signal.signal_name, args: signal.args },
    });
    if (row) return { claimed: true, approval: approvalFromRow(row), ...(signal ? { signal } : {}) };
    const latest = await findApprovalToEnd(db, current.approval_id);
    current = latest && approvalFromRow(latest);
    // Pending but past its deadline (and not held open): the expiry's to claim, not an answer's.
    if (current?.status === 'pending' && !takesAnswersAt(current, Date.now(), Date.parse(current.expires_at))) break;
  }
  return { claimed: false, approval: current };
}

/**
 * The deadline's claim, from the request as it stands (an earlier escalation moved its approver and deadline):
 * what its on_expiry says, through the same conditional write as an answer; an answer that came first stands.
 */
export async function claimExpiry(db: Knex, approvalId: string, at: string): Promise<ClaimOutcome> {
  const row = await findApprovalToEnd(db, approvalId);
  const current = row && approvalFromRow(row);
  if (current?.status !== 'pending') return { claimed: false, approval: current };
  const next = nextDeadlineMs(
    current.escalation_level ?? 0,
    Date.parse(current.created_at),
    Date.parse(current.expires_at),
  );
  return claimEnding(db, approvalId, expiryTransition(current, new Date(next).toISOString()), at, {
    before_deadline: false,
  });
}

import type { Knex } from 'knex';
import { approvalFromRow, claimApprovalAnswer, claimApprovalEnding, findApprovalToEnd } from '../../db/approvals';
import { appendProvenance, ledgerAppendCall, transactionIdFor } from '../../db/ledger';
import type { PendingSignal } from '../../db/workflow-starts';
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

/**
 * Claims a human's answer (or cancel) of the request as the caller read it, in one statement: the
 * conditional update (pending, before its deadline, still the version read), the ending's provenance record
 * with its event, and the ended signal to its workflow, all or nothing. The record is built from the read
 * request, which the version guard makes the one ended. A request changed since it was read (still pending)
 * is read again and claimed again.
 */
export async function claimAnswer(
  db: Knex,
  read: ApprovalState,
  transition: ApprovalTransition,
  at: string,
): Promise<ClaimOutcome> {
  let current: ApprovalState | undefined = read;
  for (let attempt = 0; attempt < 3 && current?.status === 'pending'; attempt += 1) {
    const provenance_id = transactionIdFor(current.approval_id, transition.step_id);
    const ended: ApprovalState = {
      ...current,
      ...transition.changes,
      version: current.version + 1,
      provenance_id,
      updated_at: at,
    };
    const signal: PendingSignal = {
      workflow_id: current.approval_id,
      signal_name: approvalEndedSignal.name,
      args: [ended],
    };
    const record = approvalRecord(requestOf(current), ended, transition, at);
    const row = await claimApprovalAnswer(db, current.approval_id, {
      changes: transition.changes,
      provenance_id,
      updated_at: at,
      read_version: current.version,
      append_bindings: ledgerAppendCall([{ ...record, organization_id: current.organization_id }]).bindings,
      signal: { name: signal.signal_name, args: signal.args },
    });
    if (row) return { claimed: true, approval: approvalFromRow(row), signal };
    const latest = await findApprovalToEnd(db, current.approval_id);
    current = latest && approvalFromRow(latest);
    // Pending but past its deadline: the expiry's to claim, not an answer's.
    if (current?.status === 'pending' && Date.parse(current.expires_at) <= Date.now()) break;
  }
  return { claimed: false, approval: current };
}

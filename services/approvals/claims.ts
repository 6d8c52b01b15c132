import type { Knex } from 'knex';
import { approvalFromRow, claimApprovalEnding, findApprovalToEnd } from '../../db/approvals';
import { appendProvenance, transactionIdFor } from '../../db/ledger';
import { pendingSignalWrite, type PendingSignal } from '../../db/workflow-starts';
import { approvalRecord, type ApprovalTransition } from '../../domain/approval-steps';
import { approvalEndedSignal, type ApprovalRequest, type ApprovalState } from '../../contracts/approval';

export type ClaimOutcome =
  /** This ending won: the request as it recorded it. */
  | { claimed: true; approval: ApprovalState; signal: PendingSignal | undefined }
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
 * update that only a pending request takes, and the transition's provenance record with its event. The
 * workflow is the one claiming (its expiry), or is told afterwards by the ended signal committed here
 * (`tell_workflow`), and carries the ending on.
 */
export async function claimEnding(
  db: Knex,
  approvalId: string,
  transition: ApprovalTransition,
  at: string,
  options: { before_deadline: boolean; tell_workflow: boolean },
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
    const signal: PendingSignal | undefined = options.tell_workflow ? { workflow_id: approval.approval_id, signal_name: approvalEndedSignal.name, args: [approval] } : undefined;
    await appendProvenance(trx, { ...approvalRecord(requestOf(approval), approval, transition, at), organization_id: approval.organization_id }, signal && pendingSignalWrite(signal));
    return { claimed: true, approval, signal };
  });
}

import type { Knex } from 'knex';
import { upsertApprovalProjection } from '../db/approvals';
import { appendProvenance } from '../db/ledger';
import type { AppendProvenanceInput, LedgerAnchor } from '../domain/provenance/records';
import type { ApprovalRequest, ApprovalState } from '../contracts/approval';
import { endedTransition } from '../domain/approvals/steps';
import { claimEnding, claimExpiry } from '../services/approvals/claims';
import { withInvalidDataFailures } from './failures';
import { DEFAULT_ORGANIZATION_ID } from '../domain/common/organizations';

export function createApprovalActivities(deps: { db: Knex }) {
  return withInvalidDataFailures({
    /**
     * One transition of an approval: its provenance record and events, then the read model showing it with
     * the record's id. Both writes are idempotent (the record by its step, the projection by its version).
     */
    async recordApprovalStep(step: { provenance: AppendProvenanceInput; state: ApprovalState }): Promise<LedgerAnchor> {
      const anchor = await appendProvenance(deps.db, {
        ...step.provenance,
        organization_id: step.state.organization_id ?? DEFAULT_ORGANIZATION_ID,
      });
      await upsertApprovalProjection(deps.db, { ...step.state, provenance_id: anchor.transaction_id });
      return anchor;
    },

    /**
     * The workflow's own ending of a request (its deadline passed, or the workflow was cancelled), claimed
     * through the same conditional write as a human's answer: whichever came first stands. Returns the
     * request as it now stands, ended by this claim or by the answer that won. A deadline does what the
     * request's on_expiry says, which may leave it pending: escalated to its next approver, or held open.
     */
    async claimApprovalEnding(input: {
      request: ApprovalRequest;
      ending: 'expired' | 'workflow_cancelled';
      at: string;
    }): Promise<ApprovalState> {
      const { request, at } = input;
      const claimed =
        input.ending === 'expired'
          ? await claimExpiry(deps.db, request.approval_id, at)
          : await claimEnding(deps.db, request.approval_id, endedTransition(request, { kind: input.ending }, at), at, {
              before_deadline: false,
            });
      if (!claimed.approval) throw new Error(`Approval ${request.approval_id} has no record to end`);
      return claimed.approval;
    },

    /** The read model alone, for a state with no transition to record (a request that failed). */
    async projectApproval(state: ApprovalState): Promise<void> {
      await upsertApprovalProjection(deps.db, state);
    },
  });
}

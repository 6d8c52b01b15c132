import type { Knex } from 'knex';
import { upsertApprovalProjection } from '../db/approvals';
import { appendProvenance } from '../db/ledger';
import type { AppendProvenanceInput, LedgerAnchor } from '../domain/provenance';
import type { ApprovalState } from '../contracts/approval';
import { withInvalidDataFailures } from './failures';
import { DEFAULT_ORGANIZATION_ID } from '../domain/organizations';

export function createApprovalActivities(deps: { db: Knex }) {
  return withInvalidDataFailures({
    /**
     * One transition of an approval: its provenance record and events, then the read model showing it with
     * the record's id. Both writes are idempotent (the record by its step, the projection by its version).
     */
    async recordApprovalStep(step: { provenance: AppendProvenanceInput; state: ApprovalState }): Promise<LedgerAnchor> {
      const anchor = await appendProvenance(deps.db, { ...step.provenance, organization_id: DEFAULT_ORGANIZATION_ID });
      await upsertApprovalProjection(deps.db, { ...step.state, provenance_id: anchor.transaction_id });
      return anchor;
    },

    /** The read model alone, for a state with no transition to record (a request that failed). */
    async projectApproval(state: ApprovalState): Promise<void> {
      await upsertApprovalProjection(deps.db, state);
    },
  });
}

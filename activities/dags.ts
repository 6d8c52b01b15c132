import type { Knex } from 'knex';
import { upsertDagProjection } from '../db/dags';
import { appendProvenance } from '../db/ledger';
import type { AppendProvenanceInput, LedgerAnchor } from '../domain/provenance/records';
import type { DagState } from '../contracts/run-dag';
import { withInvalidDataFailures } from './failures';
import { DEFAULT_ORGANIZATION_ID } from '../domain/common/organizations';

export function createDagActivities(deps: { db: Knex }) {
  return withInvalidDataFailures({
    /**
     * A step of a workflow DAG: its provenance record when it has one (start, each node's end, the end),
     * then the read model. Idempotent: the record by its step, the projection by its version.
     */
    async recordDagStep(step: {
      provenance?: AppendProvenanceInput | undefined;
      state: DagState;
      organization_id?: string | undefined;
    }): Promise<LedgerAnchor | undefined> {
      const organizationId = step.organization_id ?? DEFAULT_ORGANIZATION_ID;
      const anchor = step.provenance
        ? await appendProvenance(deps.db, { ...step.provenance, organization_id: organizationId })
        : undefined;
      await upsertDagProjection(deps.db, step.state, organizationId);
      return anchor;
    },
  });
}

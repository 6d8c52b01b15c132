import type { Knex } from 'knex';
import * as ledger from '../db/ledger';
import type { AppendProvenanceInput, LedgerAnchor } from '../domain/provenance';

export function createLedgerActivities(deps: { db: Knex }) {
  return {
    /** Provenance for workflows with no read model of their own to write in the same step; idempotent per (subject, step). */
    async appendProvenance(input: AppendProvenanceInput): Promise<LedgerAnchor> {
      return ledger.appendProvenance(deps.db, input);
    },
  };
}

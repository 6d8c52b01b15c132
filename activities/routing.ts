import type { Knex } from 'knex';
import { appendProvenance } from '../db/ledger';
import { findAvailableReviewersWithCapabilities } from '../db/reviewers';
import { upsertRoutingProjection } from '../db/routings';
import type { AppendProvenanceInput, LedgerAnchor } from '../domain/provenance';
import type { Reviewer } from '../domain/reviewer-assignment';
import type { RequiredCapability, RoutingTask } from '../domain/routing-decision';
import type { RoutingState } from '../workflows/route-task';

export interface RoutingProjection {
  state: RoutingState;
  request_id?: string | undefined;
  task: RoutingTask;
  requested_by: string;
}

export interface RoutingStep {
  provenance: AppendProvenanceInput;
  projection: RoutingProjection;
  /** Which part of the projected state carries this step's ledger anchor, known only once appended. */
  anchor_in?: 'decision_result' | 'resolution';
}

function withAnchor(state: RoutingState, anchorIn: RoutingStep['anchor_in'], anchor: LedgerAnchor): RoutingState {
  if (anchorIn === 'decision_result' && state.decision_result) {
    return { ...state, decision_result: { ...state.decision_result, provenance: { ...state.decision_result.provenance, ledger_anchor: anchor } } };
  }
  if (anchorIn === 'resolution' && state.resolution) return { ...state, resolution: { ...state.resolution, ledger_anchor: anchor } };
  return state;
}

export function createRoutingActivities(deps: { db: Knex }) {
  return {
    async loadReviewers(required: RequiredCapability[]): Promise<Reviewer[]> {
      return findAvailableReviewersWithCapabilities(
        deps.db,
        required.map((capability) => capability.capability_id),
      );
    },

    /**
     * One step of a routing: its provenance record, then the read model that shows it. Both writes are
     * idempotent (the record by its step, the projection by its version), so a retry repeats neither.
     */
    async recordRoutingStep(step: RoutingStep): Promise<LedgerAnchor> {
      const anchor = await appendProvenance(deps.db, step.provenance);
      await upsertRoutingProjection(deps.db, { ...step.projection, state: withAnchor(step.projection.state, step.anchor_in, anchor) });
      return anchor;
    },
  };
}

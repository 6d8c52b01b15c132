import type { Client } from '@temporalio/client';
import type { Knex } from 'knex';
import { appendProvenanceBatch } from '../db/ledger';
import {
  findRoutingToRecord,
  openAssignmentOf,
  projectRouting,
  routingStateOf,
  type RoutingProjection,
  type RoutingRow,
} from '../db/routings';
import { DEFAULT_ORGANIZATION_ID } from '../domain/common/organizations';
import type { AppendProvenanceInput, LedgerAnchor } from '../domain/provenance/records';
import type { LoadedReviewer } from '../domain/routing/reviewer-assignment';
import type { RequiredCapability, RoutingTask } from '../domain/routing/decision';
import type { RecordedStep, RoutingState } from '../contracts/route-task';
import { loadReviewers, loadRoutingContext, type RoutingContext } from '../services/routing/context';
import { recordEscalation } from '../services/observability/metrics';
import { FREED_REVIEWER_OFFERS, offerReviewer } from '../services/routing/queue';

export type { RoutingContext } from '../services/routing/context';

export interface RoutingStep {
  /** One or more provenance records, appended in order. */
  provenance: AppendProvenanceInput[];
  projection: RoutingProjection;
  /** Which part of the projected state carries the last record's ledger anchor, known only once appended. */
  anchor_in?: 'decision_result' | 'resolution';
}

/** A stored routing resolved by someone else than this step: a claimed resolution, not this step's own earlier attempt. */
function resolvedByAnother(stored: RoutingRow, state: RoutingState): boolean {
  return (
    stored.status === 'completed' &&
    stored.resolution?.resolved_at !== undefined &&
    stored.resolution.resolved_at !== state.resolution?.resolved_at
  );
}

function withAnchor(state: RoutingState, anchorIn: RoutingStep['anchor_in'], anchor: LedgerAnchor): RoutingState {
  if (anchorIn === 'decision_result' && state.decision_result) {
    return {
      ...state,
      decision_result: {
        ...state.decision_result,
        provenance: { ...state.decision_result.provenance, ledger_anchor: anchor },
      },
    };
  }
  if (anchorIn === 'resolution' && state.resolution)
    return { ...state, resolution: { ...state.resolution, ledger_anchor: anchor } };
  return state;
}

/**
 * The step's records and projection in one transaction; rolled back, with the routing as stored, when a
 * reviewer's resolution took the version the step would write.
 */
async function writeRoutingStep(
  db: Knex,
  step: RoutingStep,
  organization_id: string,
): Promise<{ anchor: LedgerAnchor; released: string[] } | { resolved_meanwhile: RoutingState }> {
  const trx = await db.transaction();
  try {
    // One statement for all of the step's records (the four decision moments come together).
    const anchor = (
      await appendProvenanceBatch(
        trx,
        step.provenance.map((record) => ({ ...record, organization_id })),
      )
    ).at(-1);
    if (!anchor) throw new Error('A routing step records at least one provenance record');
    const state = withAnchor(step.projection.state, step.anchor_in, anchor);
    const { applied, released } = await projectRouting(trx, { ...step.projection, state }, openAssignmentOf(state));
    const stored = applied ? undefined : await findRoutingToRecord(trx, state.routing_id);
    if (stored && resolvedByAnother(stored, state)) {
      await trx.rollback();
      return { resolved_meanwhile: routingStateOf(stored) };
    }
    await trx.commit();
    return { anchor, released };
  } catch (error) {
    if (!trx.isCompleted()) await trx.rollback();
    throw error;
  }
}

export function createRoutingActivities(deps: {
  db: Knex;
  temporal: Client;
  logger: { warn(message: string, meta?: Record<string, unknown>): unknown };
}) {
  return {
    /** All a decision needs besides the task, in the routing's organization (services/routing/context.ts). */
    async loadRoutingContext(task: RoutingTask, organizationId = DEFAULT_ORGANIZATION_ID): Promise<RoutingContext> {
      return loadRoutingContext(deps.db, organizationId, task);
    },

    async loadReviewers(
      required: RequiredCapability[],
      organizationId = DEFAULT_ORGANIZATION_ID,
    ): Promise<LoadedReviewer[]> {
      return loadReviewers(deps.db, organizationId, required);
    },

    /**
     * One step of a routing in one transaction of two statements: its provenance records (one commit for the
     * four decision moments), then the read model that shows it with the reviewer load it implies. Every write
     * is idempotent (records by their step, the projection by its version, assignments by chain level), so a
     * retry repeats none. A reviewer's resolution claimed in Postgres meanwhile (services/routing/resolution.ts)
     * took the version this step would write: the step is rolled back, records and all, and the routing as
     * resolved is given back for the workflow to close with.
     */
    async recordRoutingStep(step: RoutingStep): Promise<RecordedStep> {
      const organization_id = step.projection.organization_id ?? DEFAULT_ORGANIZATION_ID;
      const recorded = await writeRoutingStep(deps.db, step, organization_id);
      if ('resolved_meanwhile' in recorded) return recorded;
      if (step.provenance.some(({ entry }) => entry.step_id.startsWith('escalation:')))
        recordEscalation(step.projection.state.escalation_level);
      // A freed reviewer may be what a queued routing waits for; the queue's own timeouts cover a lost offer.
      for (const did of recorded.released)
        await offerReviewer(deps, organization_id, did, FREED_REVIEWER_OFFERS).catch((error: unknown) =>
          deps.logger.warn('offering a freed reviewer failed', { reviewer_did: did, error }),
        );
      return recorded.anchor;
    },
  };
}

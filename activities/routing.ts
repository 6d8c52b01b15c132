import type { Client } from '@temporalio/client';
import type { Knex } from 'knex';
import { findAgentProfile } from '../db/agents';
import { findAutonomyProfile } from '../db/organizations';
import { rulesInScope } from '../db/escalation-rules';
import { appendProvenanceBatch } from '../db/ledger';
import { findAvailableReviewersWithCapabilities } from '../db/reviewers';
import { projectRouting, type OpenAssignment, type RoutingProjection } from '../db/routings';
import { listSafetyDomains } from '../db/safety';
import type { AgentProfile } from '../domain/agents';
import { DEFAULT_ORGANIZATION_ID, type AutonomyProfile } from '../domain/organizations';
import type { EscalationRule } from '../domain/escalation-rules';
import type { AppendProvenanceInput, LedgerAnchor } from '../domain/provenance';
import type { LoadedReviewer } from '../domain/reviewer-assignment';
import { DEFAULT_RISK_THRESHOLDS } from '../domain/risk';
import type { RequiredCapability, RoutingTask } from '../domain/routing-decision';
import { resolveDomain, type DomainSafetyConfig } from '../domain/safety';
import type { RoutingState } from '../contracts/route-task';
import { FREED_REVIEWER_OFFERS, offerReviewer } from '../services/routing/queue';

export interface RoutingStep {
  /** One or more provenance records, appended in order. */
  provenance: AppendProvenanceInput[];
  projection: RoutingProjection;
  /** Which part of the projected state carries the last record's ledger anchor, known only once appended. */
  anchor_in?: 'decision_result' | 'resolution';
}

/** What a routing decision needs besides the task, loaded in one local activity. */
export interface RoutingContext {
  agent: AgentProfile | null;
  domain: string;
  safety: DomainSafetyConfig;
  rules: EscalationRule[];
  rule_set: { version: number; enabled: number };
  /** Available reviewers holding the task's own capabilities, so a human decision rarely needs another load. */
  reviewers: LoadedReviewer[];
  /** The organization's autonomy profile: how far its agents may act alone. */
  autonomy_profile: AutonomyProfile;
}

function withAnchor(state: RoutingState, anchorIn: RoutingStep['anchor_in'], anchor: LedgerAnchor): RoutingState {
  if (anchorIn === 'decision_result' && state.decision_result) {
    return { ...state, decision_result: { ...state.decision_result, provenance: { ...state.decision_result.provenance, ledger_anchor: anchor } } };
  }
  if (anchorIn === 'resolution' && state.resolution) return { ...state, resolution: { ...state.resolution, ledger_anchor: anchor } };
  return state;
}

/** The open assignment a state implies: the last level of the chain while a human holds the routing. */
function openAssignment(state: RoutingState): OpenAssignment | undefined {
  const last = state.escalation_chain[state.escalation_chain.length - 1];
  if (state.status !== 'in_progress' || state.assigned_to?.type !== 'human' || !last) return undefined;
  return { chain_level: last.level, reviewer_did: last.did, assigned_at: last.timestamp };
}

export function createRoutingActivities(deps: { db: Knex; temporal: Client; logger: { warn(message: string, meta?: Record<string, unknown>): unknown } }) {
  return {
    /**
     * The registered agent, the task's domain with its safety configuration (general, or built-in
     * thresholds and no boundaries when even that is missing), the enabled rules in its scope, and the
     * reviewers who could take it: all a decision needs, in one local activity.
     */
    async loadRoutingContext(task: RoutingTask, organizationId = DEFAULT_ORGANIZATION_ID): Promise<RoutingContext> {
      const [agent, domains, autonomy_profile] = await Promise.all([
        findAgentProfile(deps.db, organizationId, task.ai_agent_id),
        listSafetyDomains(deps.db, organizationId),
        findAutonomyProfile(deps.db, organizationId),
      ]);
      const domain = resolveDomain(task, domains);
      const config = domains.find((d) => d.domain === domain) ?? domains.find((d) => d.domain === 'general');
      const safety: DomainSafetyConfig = config
        ? { domain: config.domain, boundaries: config.boundaries, risk_thresholds: config.risk_thresholds, task_types: config.task_types }
        : { domain, boundaries: [], risk_thresholds: DEFAULT_RISK_THRESHOLDS, task_types: [] };
      const [{ rules, rule_set }, reviewers] = await Promise.all([
        rulesInScope(deps.db, organizationId, { task_type: task.task_type, domain }),
        findAvailableReviewersWithCapabilities(
          deps.db,
          organizationId,
          task.required_capabilities.map((capability) => capability.capability_id),
        ),
      ]);
      return { agent, domain, safety, rules, rule_set, reviewers, autonomy_profile };
    },

    async loadReviewers(required: RequiredCapability[], organizationId = DEFAULT_ORGANIZATION_ID): Promise<LoadedReviewer[]> {
      return findAvailableReviewersWithCapabilities(
        deps.db,
        organizationId,
        required.map((capability) => capability.capability_id),
      );
    },

    /**
     * One step of a routing in two statements: its provenance records (one commit for the four decision
     * moments), then the read model that shows it with the reviewer load it implies. Every write is
     * idempotent (records by their step, the projection by its version, assignments by chain level), so a
     * retry repeats none.
     */
    async recordRoutingStep(step: RoutingStep): Promise<LedgerAnchor> {
      // One statement for all of the step's records (the four decision moments come together).
      const organization_id = step.projection.organization_id ?? DEFAULT_ORGANIZATION_ID;
      const anchor = (await appendProvenanceBatch(deps.db, step.provenance.map((record) => ({ ...record, organization_id })))).at(-1);
      if (!anchor) throw new Error('A routing step records at least one provenance record');
      const state = withAnchor(step.projection.state, step.anchor_in, anchor);
      const { released } = await projectRouting(deps.db, { ...step.projection, state }, openAssignment(state));
      // A freed reviewer may be what a queued routing waits for; the queue's own timeouts cover a lost offer.
      for (const did of released) await offerReviewer(deps, organization_id, did, FREED_REVIEWER_OFFERS).catch((error: unknown) => deps.logger.warn('offering a freed reviewer failed', { reviewer_did: did, error }));
      return anchor;
    },
  };
}

import type { Knex } from 'knex';
import { findAvailableReviewersWithCapabilities } from '../../db/reviewers';
import { findRoutingContext } from '../../db/routing-context';
import type { AgentProfile } from '../../domain/agents/agents';
import type { EscalationRule } from '../../domain/rules/escalation-rules';
import type { AutonomyProfile } from '../../domain/common/organizations';
import type { LoadedReviewer } from '../../domain/routing/reviewer-assignment';
import { DEFAULT_RISK_THRESHOLDS } from '../../domain/routing/risk';
import type { RequiredCapability, RoutingTask } from '../../domain/routing/decision';
import { resolveDomain, type DomainSafetyConfig } from '../../domain/safety/boundaries';

/** What a routing decision needs besides the task. */
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

/**
 * The registered agent, the task's domain with its safety configuration (general, or built-in thresholds
 * and no boundaries when even that is missing), the enabled rules in its scope, and the reviewers who could
 * take it, and how far the organization lets its agents act alone: all a decision needs, in the organization,
 * read in one statement.
 */
export async function loadRoutingContext(db: Knex, organizationId: string, task: RoutingTask): Promise<RoutingContext> {
  const { agent, domains, autonomy_profile, rules, rule_set, reviewers } = await findRoutingContext(
    db,
    organizationId,
    {
      agentId: task.ai_agent_id,
      taskType: task.task_type,
      ...reviewerNeeds(task.required_capabilities),
    },
  );
  const domain = resolveDomain(task, domains);
  const config = domains.find((d) => d.domain === domain) ?? domains.find((d) => d.domain === 'general');
  const safety: DomainSafetyConfig = config
    ? {
        domain: config.domain,
        boundaries: config.boundaries,
        risk_thresholds: config.risk_thresholds,
        task_types: config.task_types,
      }
    : { domain, boundaries: [], risk_thresholds: DEFAULT_RISK_THRESHOLDS, task_types: [] };
  const inScope = rules
    .filter((rule) => rule.scope_domains === null || rule.scope_domains.includes(domain))
    .map(({ scope_domains: _scope, ...rule }) => rule);
  return { agent, domain, safety, rules: inScope, rule_set, reviewers, autonomy_profile };
}

/** The capabilities a reviewer must hold to be loaded, and those relaxed after a wait, which may be missing. */
const reviewerNeeds = (required: RequiredCapability[]) => ({
  capabilityIds: required.filter((need) => need.relax_after_seconds === undefined).map((need) => need.capability_id),
  relaxedCapabilityIds: required
    .filter((need) => need.relax_after_seconds !== undefined)
    .map((need) => need.capability_id),
});

export async function loadReviewers(
  db: Knex,
  organizationId: string,
  required: RequiredCapability[],
): Promise<LoadedReviewer[]> {
  const { capabilityIds, relaxedCapabilityIds } = reviewerNeeds(required);
  return findAvailableReviewersWithCapabilities(db, organizationId, capabilityIds, relaxedCapabilityIds);
}

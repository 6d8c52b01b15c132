import type { Knex } from 'knex';
import type { AgentProfile } from '../domain/agents/agents';
import type { EscalationRule } from '../domain/rules/escalation-rules';
import type { AutonomyProfile } from '../domain/common/organizations';
import type { LoadedReviewer } from '../domain/routing/reviewer-assignment';
import type { DomainSafetyConfig } from '../domain/safety/boundaries';
import { preparedRows } from './prepared';
import { AVAILABLE_REVIEWERS_WITH_LOAD, reviewerBindings, withCovers } from './reviewers';

/** An enabled rule whose task-type scope admits the task, with the domains it is scoped to (null: all). */
export type ScopedRule = EscalationRule & { scope_domains: string[] | null };

export interface RoutingContextRows {
  agent: AgentProfile | null;
  /** Every safety domain configured in the organization, by name. */
  domains: DomainSafetyConfig[];
  autonomy_profile: AutonomyProfile;
  /** The enabled rules in the task type's scope, by rule id; which domain they need is the caller's to resolve. */
  rules: ScopedRule[];
  /** The version counts changes in every organization; the enabled rules are the organization's own. */
  rule_set: { version: number; enabled: number };
  /**
   * Available reviewers holding every named capability, directly or by implication (weights are checked by the
   * domain), with their load.
   */
  reviewers: LoadedReviewer[];
}

/**
 * The statement of findRoutingContext, the same text at every routing (its parameters are bound), so it is a
 * named prepared statement (db/prepared.ts): planning it cost more than running it. Exported for the bench.
 */
export const ROUTING_CONTEXT = `select
       (select json_build_object('agent_id', a.agent_id, 'status', a.status, 'capabilities', a.capabilities, 'safety_constraints', a.safety_constraints)
          from agents a where a.agent_id = :agent and a.organization_id = :org) as agent,
       coalesce((select json_agg(json_build_object('domain', d.domain, 'boundaries', d.boundaries, 'risk_thresholds', d.risk_thresholds, 'task_types', d.task_types) order by d.domain)
          from safety_domains d where d.organization_id = :org), '[]'::json) as domains,
       (select o.autonomy_profile from organizations o where o.organization_id = :org) as autonomy_profile,
       coalesce((select json_agg(json_build_object('rule_id', r.rule_id, 'rule_name', r.rule_name, 'priority', r.priority, 'conditions', r.conditions, 'actions', r.actions, 'scope_domains', r.scope_domains) order by r.rule_id)
          from escalation_rules r
         where r.enabled and r.organization_id = :org and (r.scope_task_types is null or r.scope_task_types @> array[:task_type]::text[])), '[]'::json) as rules,
       (select json_build_object('version', s.version, 'enabled', (select count(*) from escalation_rules e where e.enabled and e.organization_id = :org))
          from escalation_rule_set s where s.id = 1) as rule_set,
       coalesce((select json_agg(to_json(v) order by v.chain_level, v.did) from (${AVAILABLE_REVIEWERS_WITH_LOAD}) v), '[]'::json) as reviewers`;

type RoutingTask = { agentId: string; taskType: string; capabilityIds: string[]; relaxedCapabilityIds?: string[] };

export const routingContextBindings = (organizationId: string, task: RoutingTask) => ({
  agent: task.agentId,
  org: organizationId,
  task_type: task.taskType,
  ...reviewerBindings(task.capabilityIds, task.relaxedCapabilityIds),
});

/**
 * Everything a routing decision reads, in one statement: the registered agent, the organization's safety
 * domains and autonomy profile, its enabled rules for the task type with the rule-set version beside them,
 * and the available reviewers holding the named capabilities. One round trip, and one snapshot, so the
 * rules and the version recorded with the decision agree. The rules' domain scope is left to the caller:
 * the task's domain is resolved from the domains this same statement returns.
 */
export async function findRoutingContext(
  db: Knex,
  organizationId: string,
  task: RoutingTask,
): Promise<RoutingContextRows> {
  const [row] = await preparedRows<
    Omit<RoutingContextRows, 'autonomy_profile' | 'rule_set'> & {
      autonomy_profile: AutonomyProfile | null;
      rule_set: RoutingContextRows['rule_set'] | null;
    }
  >(db, ROUTING_CONTEXT, routingContextBindings(organizationId, task));
  return {
    ...row!,
    autonomy_profile: row!.autonomy_profile ?? 'balanced',
    rule_set: row!.rule_set ?? { version: 0, enabled: 0 },
    reviewers: withCovers(row!.reviewers),
  };
}

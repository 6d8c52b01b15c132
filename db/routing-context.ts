import type { Knex } from 'knex';
import type { AgentProfile } from '../domain/agents';
import type { AutonomyProfile } from '../domain/organizations';
import type { DomainSafetyConfig } from '../domain/safety';

export interface RoutingSettings {
  agent: AgentProfile | null;
  /** Every safety domain configured in the organization, by name. */
  domains: DomainSafetyConfig[];
  autonomy_profile: AutonomyProfile;
}

/**
 * The registered agent, the organization's safety domains and its autonomy profile in one statement: the
 * first half of a routing decision's context, read in one round trip on one connection.
 */
export async function findRoutingSettings(db: Knex, organizationId: string, agentId: string): Promise<RoutingSettings> {
  const { rows } = await db.raw<{ rows: { agent: AgentProfile | null; domains: DomainSafetyConfig[]; autonomy_profile: AutonomyProfile | null }[] }>(
    `select
       (select json_build_object('agent_id', a.agent_id, 'status', a.status, 'capabilities', a.capabilities, 'safety_constraints', a.safety_constraints)
          from agents a where a.agent_id = :agent and a.organization_id = :org) as agent,
       coalesce((select json_agg(json_build_object('domain', d.domain, 'boundaries', d.boundaries, 'risk_thresholds', d.risk_thresholds, 'task_types', d.task_types) order by d.domain)
          from safety_domains d where d.organization_id = :org), '[]'::json) as domains,
       (select o.autonomy_profile from organizations o where o.organization_id = :org) as autonomy_profile`,
    { agent: agentId, org: organizationId },
  );
  const row = rows[0]!;
  return { agent: row.agent, domains: row.domains, autonomy_profile: row.autonomy_profile ?? 'balanced' };
}

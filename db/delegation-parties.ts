import type { Knex } from 'knex';

/** Who takes part in a delegation: the delegator's Passport, and the agent it delegates to. */
export interface PassportForDelegation {
  passport_id: string;
  did: string;
  type: string;
  organization_id: string;
  status: string;
  identity_tier: number;
}

export async function findPassportForDelegation(
  db: Knex,
  passportId: string,
): Promise<PassportForDelegation | undefined> {
  return db('passports')
    .where({ passport_id: passportId })
    .select('passport_id', 'did', 'type', 'organization_id', 'status', 'identity_tier')
    .first<PassportForDelegation | undefined>();
}

/** The DID an agent id names in the organization: an agent Passport (by id or DID), a platform agent's Passport (platform_agents.passport_id is its DID), or a registered orchestration agent. */
export async function findAgentDid(
  db: Knex,
  organizationId: string,
  agentId: string,
): Promise<{ did: string; agent_id: string } | undefined> {
  const passport = await db('passports')
    .where({ type: 'agent', organization_id: organizationId })
    .andWhere((q) => q.where({ passport_id: agentId }).orWhere({ did: agentId }))
    .select('passport_id', 'did')
    .first<{ passport_id: string; did: string } | undefined>();
  if (passport) return { did: passport.did, agent_id: passport.passport_id };
  const platformAgent = await db('platform_agents')
    .join('passports', (on) =>
      on
        .on('passports.did', 'platform_agents.passport_id')
        .andOn('passports.organization_id', 'platform_agents.organization_id'),
    )
    .where({ 'platform_agents.agent_id': agentId, 'platform_agents.organization_id': organizationId })
    .select('platform_agents.agent_id', 'passports.did')
    .first<{ agent_id: string; did: string } | undefined>();
  if (platformAgent) return platformAgent;
  return db('agents')
    .where({ agent_id: agentId, organization_id: organizationId })
    .select('agent_id', 'did')
    .first<{ agent_id: string; did: string } | undefined>();
}

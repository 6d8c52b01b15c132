import type { Knex } from 'knex';
import { findAgentProfile } from '../../db/agents';
import type { AgentProfile } from '../../domain/agents/agents';
import type { Principal } from '../identity/scopes';

export type CallingAgent =
  | { ok: true; agent: AgentProfile }
  | { ok: false; code: 'agent_id_required' | 'agent_id_mismatch' | 'agent_not_registered'; detail: string };

/**
 * The agent behind an agent operation. An agent's own API key speaks for that agent only (X-Agent-ID may
 * repeat it, not name another); any other orch:write credential speaks for the agent X-Agent-ID names.
 * Either way the agent must be registered and active.
 */
export async function callingAgent(
  db: Knex,
  principal: Principal,
  headerAgentId: string | undefined,
): Promise<CallingAgent> {
  const own = principal.kind === 'agent' ? principal.subject : undefined;
  if (own && headerAgentId && headerAgentId !== own) {
    return {
      ok: false,
      code: 'agent_id_mismatch',
      detail: `The API key belongs to ${own}, but X-Agent-ID names ${headerAgentId}`,
    };
  }
  const agentId = headerAgentId ?? own;
  if (!agentId)
    return {
      ok: false,
      code: 'agent_id_required',
      detail: 'Name the calling agent in X-Agent-ID (or call with the agent’s own API key)',
    };
  const agent = await findAgentProfile(db, principal.organization_id, agentId);
  if (!agent)
    return {
      ok: false,
      code: 'agent_not_registered',
      detail: `No agent ${agentId} is registered; an admin registers it with POST /v1/orch/agents/register`,
    };
  if (agent.status !== 'active')
    return { ok: false, code: 'agent_not_registered', detail: `Agent ${agentId} is ${agent.status}` };
  return { ok: true, agent };
}

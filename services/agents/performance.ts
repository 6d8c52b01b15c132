import type { Knex } from 'knex';
import { findAgent } from '../../db/agents';
import { agentOutcomes } from '../../db/agent-performance';
import { agentPerformance, type AgentPerformance } from '../../domain/agents/performance';

/** The agent's performance over the `seconds` before `until`, compared with the period before; undefined for an unknown agent. */
export async function performanceOf(
  db: Knex,
  organizationId: string,
  agentId: string,
  until: Date,
  seconds: number,
): Promise<(AgentPerformance & { period_start: string; period_end: string }) | undefined> {
  if (!(await findAgent(db, organizationId, agentId))) return undefined;
  const { current, previous } = await agentOutcomes(db, organizationId, agentId, until, seconds);
  return {
    ...agentPerformance(current, previous),
    period_start: new Date(until.getTime() - seconds * 1000).toISOString(),
    period_end: until.toISOString(),
  };
}

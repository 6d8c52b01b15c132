import type { Knex } from 'knex';
import type { AgentCapability, AgentProfile, AgentSafetyConstraints, AgentStatus } from '../domain/agents/agents';
import { paginate, type Page, type PageRequest } from './pagination';

export interface AgentRow {
  agent_id: string;
  did: string;
  agent_name: string;
  agent_type: string;
  capabilities: AgentCapability[];
  safety_constraints: AgentSafetyConstraints;
  model_info: Record<string, string>;
  status: AgentStatus;
  organization_id: string;
  registered_by: string;
  version: number;
  registered_at: Date;
  updated_at: Date;
}

const PUBLIC_COLUMNS = [
  'agent_id',
  'did',
  'agent_name',
  'agent_type',
  'capabilities',
  'safety_constraints',
  'model_info',
  'status',
  'organization_id',
  'registered_by',
  'version',
  'registered_at',
  'updated_at',
];

export async function insertAgent(
  db: Knex,
  agent: Omit<AgentRow, 'version' | 'registered_at' | 'updated_at'> & { api_key_hash: string },
): Promise<AgentRow> {
  const [row] = await db('agents')
    .insert({
      ...agent,
      capabilities: JSON.stringify(agent.capabilities),
      safety_constraints: JSON.stringify(agent.safety_constraints),
      model_info: JSON.stringify(agent.model_info),
    })
    .returning<AgentRow[]>(PUBLIC_COLUMNS);
  return row!;
}

export async function findAgent(db: Knex, organizationId: string, agentId: string): Promise<AgentRow | undefined> {
  const row: unknown = await db('agents')
    .select(PUBLIC_COLUMNS)
    .where({ agent_id: agentId, organization_id: organizationId })
    .first();
  return row as AgentRow | undefined;
}

export async function findAgentByKeyHash(
  db: Knex,
  keyHash: string,
): Promise<Pick<AgentRow, 'agent_id' | 'status' | 'organization_id'> | undefined> {
  const row: unknown = await db('agents')
    .select('agent_id', 'status', 'organization_id')
    .where({ api_key_hash: keyHash })
    .first();
  return row as Pick<AgentRow, 'agent_id' | 'status' | 'organization_id'> | undefined;
}

/** What routing needs of an agent, or null when it is not registered. */
export async function findAgentProfile(
  db: Knex,
  organizationId: string,
  agentId: string,
): Promise<AgentProfile | null> {
  const row = await db<AgentRow>('agents')
    .select('agent_id', 'status', 'capabilities', 'safety_constraints')
    .where({ agent_id: agentId, organization_id: organizationId })
    .first();
  return row
    ? {
        agent_id: row.agent_id,
        status: row.status,
        capabilities: row.capabilities,
        safety_constraints: row.safety_constraints,
      }
    : null;
}

export async function listAgents(
  db: Knex,
  organizationId: string,
  page: PageRequest,
  filter: { status?: AgentStatus | undefined; agent_type?: string | undefined },
): Promise<Page<AgentRow>> {
  const query = db('agents').select(PUBLIC_COLUMNS).where({ organization_id: organizationId });
  if (filter.status) query.where({ status: filter.status });
  if (filter.agent_type) query.where({ agent_type: filter.agent_type });
  return paginate<AgentRow>(query, page);
}

/** Applies the changes when the stored version is still `expectedVersion`; the row as it now is, or undefined. */
export async function updateAgent(
  db: Knex,
  organizationId: string,
  agentId: string,
  changes: Partial<Pick<AgentRow, 'status' | 'safety_constraints' | 'capabilities' | 'agent_name'>> & {
    api_key_hash?: string;
  },
): Promise<AgentRow | undefined> {
  const values: Record<string, unknown> = { ...changes, updated_at: db.fn.now(), version: db.raw('version + 1') };
  if (changes.capabilities) values.capabilities = JSON.stringify(changes.capabilities);
  if (changes.safety_constraints) values.safety_constraints = JSON.stringify(changes.safety_constraints);
  const [row] = await db('agents')
    .where({ agent_id: agentId, organization_id: organizationId })
    .update(values)
    .returning<AgentRow[]>(PUBLIC_COLUMNS);
  return row;
}

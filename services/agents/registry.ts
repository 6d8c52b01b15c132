import type { Knex } from 'knex';
import { findAgent, insertAgent, updateAgent, type AgentRow } from '../../db/agents';
import { appendProvenance } from '../../db/ledger';
import type { AgentCapability, AgentSafetyConstraints, AgentStatus } from '../../domain/agents/agents';
import { agentDid } from '../../domain/provenance/records';
import { mintAgentKey } from '../identity/issuance/access-tokens';
import type { Principal } from '../identity/scopes';
import { recordedBy } from '../identity/authentication/recorded-by';

export interface AgentRegistration {
  agent_id: string;
  agent_name: string;
  agent_type: string;
  capabilities: AgentCapability[];
  safety_constraints: AgentSafetyConstraints;
  model_info: Record<string, string>;
}

const isUniqueViolation = (error: unknown) => (error as { code?: string }).code === '23505';

/**
 * Registers an agent, active, with an API key returned only here, together with its provenance record
 * and the agent.registered event in one transaction.
 */
export async function registerAgent(
  db: Knex,
  registration: AgentRegistration,
  principal: Principal,
): Promise<{ ok: true; agent: AgentRow; api_key: string } | { ok: false; code: 'agent_exists' }> {
  const { api_key, api_key_hash } = mintAgentKey();
  const did = agentDid(registration.agent_id);
  try {
    const agent = await db.transaction(async (trx) => {
      const row = await insertAgent(trx, {
        ...registration,
        did,
        status: 'active',
        organization_id: principal.organization_id,
        registered_by: principal.id,
        api_key_hash,
      });
      await appendProvenance(trx, {
        entry: {
          subject_id: row.agent_id,
          step_id: 'registered',
          timestamp: row.registered_at.toISOString(),
          actor: recordedBy(principal),
          action: 'agent_registered',
          input_data: { ...registration },
          output_data: { did, status: row.status },
          reasoning: `${principal.id} registered ${row.agent_name} (${row.agent_type})`,
        },
        organization_id: principal.organization_id,
        events: [
          {
            event: 'agent.registered',
            data: {
              agent_id: row.agent_id,
              did,
              agent_name: row.agent_name,
              agent_type: row.agent_type,
              status: row.status,
            },
          },
        ],
      });
      return row;
    });
    return { ok: true, agent, api_key };
  } catch (error) {
    if (isUniqueViolation(error)) return { ok: false, code: 'agent_exists' };
    throw error;
  }
}

export type AgentChanges = Partial<{
  status: AgentStatus;
  safety_constraints: AgentSafetyConstraints;
  capabilities: AgentCapability[];
  agent_name: string;
}>;

/** Changes an agent (suspending it shuts its key and X-Agent-ID out at once), recorded in provenance. */
export async function changeAgent(
  db: Knex,
  agentId: string,
  changes: AgentChanges,
  principal: Principal,
): Promise<AgentRow | undefined> {
  return db.transaction(async (trx) => {
    const before = await findAgent(trx, principal.organization_id, agentId);
    if (!before) return undefined;
    const row = await updateAgent(trx, principal.organization_id, agentId, changes);
    if (!row) return undefined;
    await appendProvenance(trx, {
      entry: {
        subject_id: agentId,
        step_id: `updated:v${row.version}`,
        timestamp: row.updated_at.toISOString(),
        actor: recordedBy(principal),
        action: 'agent_updated',
        input_data: { ...changes },
        output_data: { status: row.status, version: row.version, previous_status: before.status },
        reasoning: `${principal.id} changed ${Object.keys(changes).join(', ')}`,
      },
      organization_id: principal.organization_id,
    });
    return row;
  });
}

/** A new API key; the old one stops working at once. */
export async function rotateAgentKey(
  db: Knex,
  agentId: string,
  principal: Principal,
): Promise<{ agent: AgentRow; api_key: string } | undefined> {
  const { api_key, api_key_hash } = mintAgentKey();
  return db.transaction(async (trx) => {
    const row = await updateAgent(trx, principal.organization_id, agentId, { api_key_hash });
    if (!row) return undefined;
    await appendProvenance(trx, {
      entry: {
        subject_id: agentId,
        step_id: `key_rotated:v${row.version}`,
        timestamp: row.updated_at.toISOString(),
        actor: recordedBy(principal),
        action: 'agent_key_rotated',
        input_data: {},
        output_data: { version: row.version },
        reasoning: `${principal.id} replaced the agent's API key`,
      },
      organization_id: principal.organization_id,
    });
    return { agent: row, api_key };
  });
}

import type { Knex } from 'knex';
import type { ApprovalPolicy } from '../domain/executions/agent-calls';
import { paginate, type Page, type PageRequest } from './pagination';

export interface PlatformAgentRow {
  agent_id: string;
  agent_uri: string;
  org: string;
  name: string;
  version: string;
  passport_id: string;
  description: string | null;
  capabilities: string[];
  endpoint_url: string;
  status: 'active' | 'inactive';
  approval_policy: ApprovalPolicy;
  parameters_schema: Record<string, unknown> | null;
  timeout_seconds: number;
  max_attempts: number;
  created_by: string;
  organization_id: string;
  created_at: Date;
  updated_at: Date;
}

export interface DeploymentRow {
  deployment_id: string;
  organization_id: string;
  org: string;
  name: string;
  environment: string;
  version: string;
  agent_id: string;
  parameters: Record<string, unknown>;
  deployed_by: string;
  deployed_at: Date;
}

export type NewPlatformAgent = Omit<PlatformAgentRow, 'created_at' | 'updated_at'>;

/** False when an agent with that URI is already registered. */
export async function insertPlatformAgent(db: Knex, agent: NewPlatformAgent): Promise<boolean> {
  const inserted = await db('platform_agents')
    .insert({
      ...agent,
      approval_policy: JSON.stringify(agent.approval_policy),
      parameters_schema: agent.parameters_schema === null ? null : JSON.stringify(agent.parameters_schema),
    })
    .onConflict('agent_uri')
    .ignore()
    .returning('agent_id');
  return inserted.length > 0;
}

export type PlatformAgentChanges = Partial<
  Pick<
    PlatformAgentRow,
    | 'description'
    | 'capabilities'
    | 'endpoint_url'
    | 'status'
    | 'approval_policy'
    | 'parameters_schema'
    | 'timeout_seconds'
    | 'max_attempts'
  >
>;

export async function updatePlatformAgent(
  db: Knex,
  organizationId: string,
  agentId: string,
  changes: PlatformAgentChanges,
): Promise<PlatformAgentRow | undefined> {
  const values: Record<string, unknown> = { ...changes, updated_at: db.fn.now() };
  if (changes.approval_policy) values.approval_policy = JSON.stringify(changes.approval_policy);
  if (changes.parameters_schema !== undefined)
    values.parameters_schema = changes.parameters_schema === null ? null : JSON.stringify(changes.parameters_schema);
  const [row] = await db<PlatformAgentRow>('platform_agents')
    .where({ agent_id: agentId, organization_id: organizationId })
    .update(values)
    .returning('*');
  return row;
}

export async function findPlatformAgentById(
  db: Knex,
  organizationId: string,
  agentId: string,
): Promise<PlatformAgentRow | undefined> {
  return db<PlatformAgentRow>('platform_agents').where({ agent_id: agentId, organization_id: organizationId }).first();
}

export async function findPlatformAgentByUri(
  db: Knex,
  organizationId: string,
  agentUri: string,
): Promise<PlatformAgentRow | undefined> {
  return db<PlatformAgentRow>('platform_agents')
    .where({ agent_uri: agentUri, organization_id: organizationId })
    .first();
}

export async function listPlatformAgents(
  db: Knex,
  organizationId: string,
  page: PageRequest,
  filter: { status?: string | undefined; capability?: string | undefined; org?: string | undefined },
): Promise<Page<PlatformAgentRow>> {
  const query = db<PlatformAgentRow>('platform_agents').select('*').where('organization_id', organizationId);
  if (filter.status) query.where('status', filter.status);
  if (filter.org) query.where('org', filter.org);
  if (filter.capability) query.whereRaw('? = any(capabilities)', [filter.capability]);
  return paginate<PlatformAgentRow>(query, page);
}

export async function insertDeployment(
  db: Knex,
  deployment: Omit<DeploymentRow, 'deployed_at'>,
): Promise<DeploymentRow> {
  const [row] = await db<DeploymentRow>('platform_agent_deployments')
    .insert({ ...deployment, parameters: JSON.stringify(deployment.parameters) as never })
    .returning('*');
  return row!;
}

/** The version each environment runs now: the latest deployment per environment of an agent (org/name) of the organization. */
export async function currentDeployments(
  db: Knex,
  organizationId: string,
  agent: { org: string; name: string },
): Promise<DeploymentRow[]> {
  return db<DeploymentRow>('platform_agent_deployments')
    .distinctOn('environment')
    .where({ organization_id: organizationId, org: agent.org, name: agent.name })
    .orderBy([
      { column: 'environment' },
      { column: 'deployed_at', order: 'desc' },
      { column: 'deployment_id', order: 'desc' },
    ]);
}

import { createHash, randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import { appendProvenance } from '../../db/ledger';
import {
  currentDeployments,
  findPlatformAgentById,
  findPlatformAgentByUri,
  insertDeployment,
  insertPlatformAgent,
  updatePlatformAgent,
  type DeploymentRow,
  type PlatformAgentChanges,
  type PlatformAgentRow,
} from '../../db/platform-agents';
import { findOrganization } from '../../db/organizations';
import { agentUriOf, parseAgentUri, type AgentUri, type ApprovalPolicy } from '../../domain/executions/agent-calls';
import { ORCH_CORE_DID, type OutboxEvent } from '../../domain/provenance/records';
import type { PlatformSettings } from '../platform/settings';
import { paramsValidator, type FieldProblem } from '../approvals/approvals';
import { createOutboundGuard } from '../../lib/outbound/url-guard';

/** Who registers or changes an agent: the agent belongs to its organization. */
export interface AgentRegistrant {
  id: string;
  organization_id: string;
}

export interface AgentRegistryDeps {
  db: Knex;
  settings: PlatformSettings;
}

/** Stable and URL-safe, from the agent URI: the same URI always has the same id. */
export function agentIdFor(agentUri: string): string {
  return `agt_${createHash('sha256').update(agentUri).digest('hex').slice(0, 24)}`;
}

export interface NewAgent {
  agent_uri: string;
  endpoint_url: string;
  capabilities: string[];
  passport_id?: string | undefined;
  description?: string | undefined;
  approval_policy: ApprovalPolicy;
  parameters_schema?: Record<string, unknown> | undefined;
  timeout_seconds?: number | undefined;
  max_attempts?: number | undefined;
  status: 'active' | 'inactive';
}

/** Refuses what would only fail later: an endpoint the outbound policy refuses, a parameters schema we cannot apply. */
async function checkAgentFields(
  settings: PlatformSettings,
  fields: { endpoint_url?: string | undefined; parameters_schema?: Record<string, unknown> | null | undefined },
): Promise<FieldProblem[]> {
  const problems: FieldProblem[] = [];
  if (fields.endpoint_url !== undefined) {
    const check = await createOutboundGuard(settings.outboundPolicy).check(fields.endpoint_url);
    if (!check.ok) problems.push({ field: 'endpoint_url', code: 'refused', message: `the endpoint ${check.reason}` });
  }
  if (fields.parameters_schema) {
    const compiled = paramsValidator(fields.parameters_schema);
    if (!compiled.ok) problems.push({ field: 'parameters_schema', code: 'invalid_schema', message: compiled.message });
  }
  return problems;
}

export type RegisterOutcome =
  | { ok: true; agent: PlatformAgentRow }
  | { ok: false; code: 'invalid'; errors: FieldProblem[] }
  | { ok: false; code: 'agent_exists'; agent_id: string }
  | { ok: false; code: 'agent_uri_foreign_organization'; detail: string };

/**
 * The org segments the organization's agent URIs may have: its slug and its organization id. Both are unique
 * across organizations and never equal one another's (a slug has no underscore, an id has), so an agent URI, and
 * the agent id derived from it, belongs to one organization only.
 */
async function ownOrgSegments(db: Knex, organizationId: string): Promise<{ segments: string[]; preferred: string }> {
  const slug = (await findOrganization(db, organizationId))?.slug;
  return slug
    ? { segments: [slug, organizationId], preferred: slug }
    : { segments: [organizationId], preferred: organizationId };
}

/** The agent URI's parts, once it is well formed and names the caller's organization. */
async function ownAgentUri(
  db: Knex,
  organizationId: string,
  agentUri: string,
): Promise<{ ok: true; parts: AgentUri } | Extract<RegisterOutcome, { ok: false }>> {
  const parts = parseAgentUri(agentUri);
  if (!parts)
    return {
      ok: false,
      code: 'invalid',
      errors: [{ field: 'agent_uri', code: 'invalid_format', message: 'must be agent://<org>/<name>@<semver>' }],
    };
  const own = await ownOrgSegments(db, organizationId);
  if (!own.segments.includes(parts.org)) {
    return {
      ok: false,
      code: 'agent_uri_foreign_organization',
      detail: `The org segment of ${agentUri} is not your organization's: use agent://${own.preferred}/${parts.name}@${parts.version}`,
    };
  }
  return { ok: true, parts };
}

/** A change to the registry in the log, made by the orchestration core on a principal's word, with its event. */
async function recordAgentChange(
  db: Knex,
  { id: principalId, organization_id }: AgentRegistrant,
  change: {
    subject_id: string;
    step_id: string;
    action: string;
    input?: Record<string, unknown>;
    output_data: Record<string, unknown>;
    reasoning: string;
    event: OutboxEvent;
  },
): Promise<void> {
  await appendProvenance(db, {
    organization_id,
    entry: {
      subject_id: change.subject_id,
      step_id: change.step_id,
      timestamp: new Date().toISOString(),
      actor: { type: 'orch_core', did: ORCH_CORE_DID },
      action: change.action,
      input_data: { principal: principalId, ...change.input },
      output_data: change.output_data,
      reasoning: change.reasoning,
    },
    events: [change.event],
  });
}

/** Registers an agent version with its endpoint, with its provenance record and event, in one transaction. */
export async function registerAgent(
  deps: AgentRegistryDeps,
  registrant: AgentRegistrant,
  body: NewAgent,
): Promise<RegisterOutcome> {
  const { id: principalId, organization_id } = registrant;
  const uri = await ownAgentUri(deps.db, organization_id, body.agent_uri);
  if (!uri.ok) return uri;
  const { parts } = uri;
  const errors = await checkAgentFields(deps.settings, body);
  if (errors.length > 0) return { ok: false, code: 'invalid', errors };
  const agent_id = agentIdFor(body.agent_uri);
  const row = {
    agent_id,
    agent_uri: body.agent_uri,
    ...parts,
    passport_id: body.passport_id ?? `did:web:handoff.local:agents:${parts.org}:${parts.name}`,
    description: body.description ?? null,
    capabilities: body.capabilities,
    endpoint_url: body.endpoint_url,
    status: body.status,
    approval_policy: body.approval_policy,
    parameters_schema: body.parameters_schema ?? null,
    timeout_seconds: body.timeout_seconds ?? deps.settings.agentDefaults.timeoutSeconds,
    max_attempts: body.max_attempts ?? deps.settings.agentDefaults.maxAttempts,
    created_by: principalId,
    organization_id,
  };
  const created = await deps.db.transaction(async (trx) => {
    if (!(await insertPlatformAgent(trx, row))) return false;
    await recordAgentChange(trx, registrant, {
      subject_id: agent_id,
      step_id: 'registered',
      action: 'platform_agent_registered',
      output_data: {
        agent_uri: row.agent_uri,
        capabilities: row.capabilities,
        endpoint_url: row.endpoint_url,
        approval_policy: row.approval_policy,
      },
      reasoning: `${principalId} registered ${row.agent_uri}`,
      event: {
        event: 'platform_agent.registered',
        data: { agent_id, agent_uri: row.agent_uri, capabilities: row.capabilities, status: row.status },
      },
    });
    return true;
  });
  if (!created) return { ok: false, code: 'agent_exists', agent_id };
  return { ok: true, agent: (await findPlatformAgentById(deps.db, organization_id, agent_id))! };
}

export type UpdateOutcome =
  | { ok: true; agent: PlatformAgentRow }
  | { ok: false; code: 'invalid'; errors: FieldProblem[] }
  | { ok: false; code: 'agent_not_found' };

export async function updateAgent(
  deps: AgentRegistryDeps,
  registrant: AgentRegistrant,
  agentId: string,
  changes: PlatformAgentChanges,
): Promise<UpdateOutcome> {
  const { id: principalId, organization_id } = registrant;
  const errors = await checkAgentFields(deps.settings, changes);
  if (errors.length > 0) return { ok: false, code: 'invalid', errors };
  const updated = await deps.db.transaction(async (trx) => {
    const row = await updatePlatformAgent(trx, organization_id, agentId, changes);
    if (!row) return undefined;
    await recordAgentChange(trx, registrant, {
      subject_id: agentId,
      step_id: `updated:${randomUUID()}`,
      action: 'platform_agent_updated',
      output_data: { ...changes },
      reasoning: `${principalId} changed ${Object.keys(changes).join(', ') || 'nothing'} of ${row.agent_uri}`,
      event: {
        event: 'platform_agent.updated',
        data: { agent_id: agentId, agent_uri: row.agent_uri, changed: Object.keys(changes), status: row.status },
      },
    });
    return row;
  });
  return updated ? { ok: true, agent: updated } : { ok: false, code: 'agent_not_found' };
}

export type DeployOutcome =
  | { ok: true; deployment: DeploymentRow & { agent_uri: string } }
  | { ok: false; code: 'agent_not_found' | 'agent_version_not_registered'; detail: string };

/** Records that a registered version of the agent (its org/name) now runs in an environment. */
export async function deployAgent(
  deps: AgentRegistryDeps,
  registrant: AgentRegistrant,
  agentId: string,
  body: { environment: string; version: string; parameters: Record<string, unknown> },
): Promise<DeployOutcome> {
  const { id: principalId, organization_id } = registrant;
  const agent = await findPlatformAgentById(deps.db, organization_id, agentId);
  if (!agent) return { ok: false, code: 'agent_not_found', detail: `No agent ${agentId}` };
  const targetUri = agentUriOf({ org: agent.org, name: agent.name, version: body.version });
  const target = await findPlatformAgentByUri(deps.db, organization_id, targetUri);
  if (!target)
    return {
      ok: false,
      code: 'agent_version_not_registered',
      detail: `${targetUri} is not registered; register it with its endpoint first`,
    };
  const deployment = await deps.db.transaction(async (trx) => {
    const row = await insertDeployment(trx, {
      deployment_id: `dep_${randomUUID()}`,
      organization_id,
      org: agent.org,
      name: agent.name,
      environment: body.environment,
      version: body.version,
      agent_id: target.agent_id,
      parameters: body.parameters,
      deployed_by: principalId,
    });
    await recordAgentChange(trx, registrant, {
      subject_id: row.deployment_id,
      step_id: 'deployed',
      action: 'platform_agent_deployed',
      input: { parameters: body.parameters },
      output_data: { agent_uri: targetUri, environment: body.environment },
      reasoning: `${principalId} deployed ${targetUri} to ${body.environment}`,
      event: {
        event: 'platform_agent.deployed',
        data: {
          deployment_id: row.deployment_id,
          agent_id: target.agent_id,
          agent_uri: targetUri,
          environment: body.environment,
          version: body.version,
        },
      },
    });
    return row;
  });
  return { ok: true, deployment: { ...deployment, agent_uri: targetUri } };
}

/** The agent a call by id reaches: the version deployed to production when there is one, with its parameters as defaults. */
export async function agentForLegacyCall(
  db: Knex,
  organizationId: string,
  agentId: string,
): Promise<{ agent: PlatformAgentRow; defaults: Record<string, unknown> } | undefined> {
  const agent = await findPlatformAgentById(db, organizationId, agentId);
  if (!agent) return undefined;
  const production = (await currentDeployments(db, organizationId, agent)).find(
    (deployment) => deployment.environment === 'production',
  );
  if (!production) return { agent, defaults: {} };
  const deployed = await findPlatformAgentById(db, organizationId, production.agent_id);
  return { agent: deployed ?? agent, defaults: production.parameters };
}

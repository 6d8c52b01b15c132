import { randomBytes } from 'node:crypto';
import type { Knex } from 'knex';
import { findAgent, listAgents, type AgentRow } from '../../db/agents';
import { AGENT_STATUSES, configuredConstraintCount } from '../../domain/agents/agents';
import { changeAgent, registerAgent, rotateAgentKey } from '../../services/agents/registry';
import { storeSealed } from '../middleware/idempotency';
import { Problem } from '../problem';
import type { ApiBuilder } from '../route';
import { routeGroup, type RouteGroup } from '../route-group';
import {
  AgentIdSchema,
  AgentRegisteredSchema,
  AgentSchema,
  PatchAgentSchema,
  RegisterAgentSchema,
} from '../schemas/agents';
import { listQuerySchema } from '../schemas/common';
import { z } from '../schemas/zod';

export const AgentParamsSchema = z.object({ agent_id: AgentIdSchema });

export function renderAgent(row: AgentRow) {
  return {
    agent_id: row.agent_id,
    did: row.did,
    agent_name: row.agent_name,
    agent_type: row.agent_type,
    status: row.status,
    capabilities: row.capabilities,
    safety_constraints: row.safety_constraints,
    model_info: row.model_info,
    safety_boundaries_configured: configuredConstraintCount(row.safety_constraints),
    monitoring_enabled: true,
    registered_at: row.registered_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}

const ListAgentsQuerySchema = listQuerySchema.extend({
  status: z.enum(AGENT_STATUSES).optional(),
  agent_type: z.string().min(1).optional(),
});
const SORTABLE = { agent_id: 'agent_id', registered_at: 'registered_at', agent_name: 'agent_name' };

const agentNotFound = (agentId: string) => new Problem('agent_not_found', `No agent ${agentId}`);

/** The agent registry: registering an agent, reading the registered ones, changing one or its key. */
export function registerAgentRoutes(api: ApiBuilder, deps: { db: Knex }): void {
  const agents = routeGroup(api, { tags: ['Agents'], auth: 'orch:admin', rateLimit: 'agent-monitoring' });
  registerAgentRegistration(agents, deps);
  registerAgentReads(agents, deps);
  registerAgentChanges(agents, deps);
}

function registerAgentRegistration(agents: RouteGroup, deps: { db: Knex }): void {
  agents.route({
    method: 'post',
    path: '/v1/orch/agents/register',
    operationId: 'registerAgent',
    summary: 'Register an AI agent (admin); its API key is shown once',
    description:
      'The agent calls the agent operations with its key as bearer token (scope orch:agent, nothing else), or an orch:write caller names it in X-Agent-ID. ' +
      'Its safety_constraints are enforced on every later routing and check. Emits agent.registered. With an Idempotency-Key a retry gets the ' +
      'first answer again (Idempotent-Replayed: true), its API key included: a client that lost the answer needs that key. The stored answer ' +
      'keeps the key sealed under SECRETS_ENCRYPTION_KEY, bound to the caller and the Idempotency-Key, for the key’s 24 hours; without ' +
      'SECRETS_ENCRYPTION_KEY nothing can seal it, and a replay carries api_key null (POST /v1/orch/agents/{agent_id}/api-key gives a new one).',
    request: { body: RegisterAgentSchema },
    responses: {
      201: { description: 'The agent and its API key', schema: AgentRegisteredSchema },
      409: { description: 'agent_exists' },
    },
    handler: async ({ body, principal, res }) => {
      res.set('Cache-Control', 'no-store');
      storeSealed(res, ['api_key']);
      const agent_id = body.agent_id ?? `urn:handoff:agent:${body.agent_type}:${randomBytes(8).toString('hex')}`;
      const result = await registerAgent(deps.db, { ...body, agent_id }, principal);
      if (!result.ok) throw new Problem('agent_exists', `Agent ${agent_id} is already registered`);
      return {
        status: 201,
        body: { ...renderAgent(result.agent), api_key: result.api_key },
        headers: { Location: `/v1/orch/agents/${encodeURIComponent(agent_id)}` },
      };
    },
  });
}

function registerAgentReads(agents: RouteGroup, deps: { db: Knex }): void {
  agents.list({
    path: '/v1/orch/agents',
    operationId: 'listAgents',
    summary: 'List registered agents',
    auth: 'orch:read',
    query: ListAgentsQuerySchema,
    page: { description: 'A page of agents', item: AgentSchema, name: 'AgentPage' },
    sort: { allowed: SORTABLE, fallback: 'registered_at', uniqueKey: 'agent_id' },
    list: ({ query, principal, page }) => listAgents(deps.db, principal.organization_id, page, query),
    view: renderAgent,
  });

  agents.get({
    path: '/v1/orch/agents/{agent_id}',
    operationId: 'getAgent',
    summary: 'Read a registered agent',
    auth: 'orch:read',
    params: AgentParamsSchema,
    found: { description: 'The agent', schema: AgentSchema },
    missing: { code: 'agent_not_found', detail: ({ params }) => `No agent ${params.agent_id}` },
    find: ({ params, principal }) => findAgent(deps.db, principal.organization_id, params.agent_id),
    view: renderAgent,
  });
}

function registerAgentChanges(agents: RouteGroup, deps: { db: Knex }): void {
  agents.route({
    method: 'patch',
    path: '/v1/orch/agents/{agent_id}',
    operationId: 'updateAgent',
    summary: 'Change an agent: name, capabilities, safety constraints, or status (admin)',
    request: { params: AgentParamsSchema, body: PatchAgentSchema },
    responses: {
      200: { description: 'The agent as changed', schema: AgentSchema },
      404: { description: 'agent_not_found' },
    },
    handler: async ({ params, body, principal }) => {
      const row = await changeAgent(deps.db, params.agent_id, body, principal);
      if (!row) throw agentNotFound(params.agent_id);
      return { status: 200, body: renderAgent(row) };
    },
  });

  agents.route({
    method: 'post',
    path: '/v1/orch/agents/{agent_id}/api-key',
    operationId: 'rotateAgentKey',
    summary: 'Replace an agent’s API key (admin); the old key stops working at once',
    idempotency: false,
    request: { params: AgentParamsSchema },
    responses: {
      200: { description: 'The agent and its new API key', schema: AgentRegisteredSchema },
      404: { description: 'agent_not_found' },
    },
    handler: async ({ params, principal, res }) => {
      res.set('Cache-Control', 'no-store');
      const rotated = await rotateAgentKey(deps.db, params.agent_id, principal);
      if (!rotated) throw agentNotFound(params.agent_id);
      return { status: 200, body: { ...renderAgent(rotated.agent), api_key: rotated.api_key } };
    },
  });
}

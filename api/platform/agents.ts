import {
  currentDeployments,
  findPlatformAgentById,
  listPlatformAgents,
  type DeploymentRow,
  type PlatformAgentRow,
} from '../../db/platform-agents';
import { agentUriOf } from '../../domain/executions/agent-calls';
import { deployAgent, registerAgent, updateAgent } from '../../services/platform-agents/registry';
import type { PlatformServiceDeps } from '../../services/approvals/approvals';
import { Problem } from '../problem';
import type { ApiBuilder } from '../route';
import { routeGroup, type RouteGroup } from '../route-group';
import {
  AgentIdParamsSchema,
  DeployAgentSchema,
  DeploymentSchema,
  ListAgentsQuerySchema,
  PlatformAgentDetailSchema,
  PlatformAgentSchema,
  RegisterAgentSchema,
  UpdateAgentSchema,
} from '../schemas/platform-agents';
import { registerAgentCallRoutes } from './agent-calls';

function agentView(row: PlatformAgentRow) {
  return {
    agent_id: row.agent_id,
    agent_uri: row.agent_uri,
    passportId: row.passport_id,
    capabilities: row.capabilities,
    status: row.status,
    org: row.org,
    name: row.name,
    version: row.version,
    description: row.description,
    endpoint_url: row.endpoint_url,
    approval_policy: row.approval_policy,
    parameters_schema: row.parameters_schema,
    timeout_seconds: row.timeout_seconds,
    max_attempts: row.max_attempts,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}

function deploymentView(row: DeploymentRow & { agent_uri?: string }) {
  return {
    deployment_id: row.deployment_id,
    agent_id: row.agent_id,
    agent_uri: row.agent_uri ?? agentUriOf(row),
    environment: row.environment,
    version: row.version,
    parameters: row.parameters,
    deployed_by: row.deployed_by,
    deployed_at: new Date(row.deployed_at).toISOString(),
  };
}

/** Registered agents (listed, read, registered, changed, deployed), then the calls that invoke them. */
export function registerAgentRoutes(api: ApiBuilder, deps: PlatformServiceDeps): void {
  const agents = routeGroup(api, { tags: ['Agents'], auth: 'platform:read', rateLimit: 'default' });
  registerAgentReads(agents, deps);
  registerAgentRegistration(agents, deps);
  registerAgentChanges(agents, deps);
  registerAgentCallRoutes(agents, deps);
}

function registerAgentReads(agents: RouteGroup, deps: PlatformServiceDeps): void {
  agents.list({
    path: '/v1/agents',
    operationId: 'listAgents',
    summary: 'List registered agents',
    query: ListAgentsQuerySchema,
    page: { description: 'A page of agents', item: PlatformAgentSchema, name: 'PlatformAgentPage' },
    sort: {
      allowed: { created_at: 'created_at', agent_uri: 'agent_uri' },
      fallback: 'created_at',
      uniqueKey: 'agent_id',
    },
    list: ({ query, principal, page }) => listPlatformAgents(deps.db, principal.organization_id, page, query),
    view: agentView,
  });

  agents.get({
    path: '/v1/agents/{agent_id}',
    operationId: 'getAgent',
    summary: 'Read an agent, with what each environment runs',
    params: AgentIdParamsSchema,
    found: { description: 'The agent', schema: PlatformAgentDetailSchema },
    missing: {
      code: 'agent_not_found',
      description: 'No such agent',
      detail: ({ params }) => `No agent ${params.agent_id}`,
    },
    find: async ({ params, principal }) => {
      const agent = await findPlatformAgentById(deps.db, principal.organization_id, params.agent_id);
      return agent && { agent, deployments: await currentDeployments(deps.db, principal.organization_id, agent) };
    },
    view: ({ agent, deployments }) => ({ ...agentView(agent), deployments: deployments.map(deploymentView) }),
  });
}

function registerAgentRegistration(agents: RouteGroup, deps: PlatformServiceDeps): void {
  agents.route({
    method: 'post',
    path: '/v1/agents',
    operationId: 'registerAgent',
    summary: 'Register an agent version with the endpoint it is invoked at',
    description:
      'agent_id derives from agent_uri, whose org segment names the caller’s organization: its slug or its organization id. The endpoint must ' +
      'pass the outbound policy (public, or allowlisted by OUTBOUND_PRIVATE_ALLOWLIST).',
    auth: 'platform:admin',
    request: { body: RegisterAgentSchema },
    responses: {
      201: { description: 'The registered agent', schema: PlatformAgentSchema },
      403: {
        description:
          'agent_uri_foreign_organization: the org segment of agent_uri is neither the slug nor the id of the caller’s organization',
      },
      409: { description: 'That agent URI is already registered' },
    },
    handler: async ({ body, principal }) => {
      const outcome = await registerAgent(deps, principal, body);
      if (outcome.ok)
        return {
          status: 201,
          body: agentView(outcome.agent),
          headers: { Location: `/v1/agents/${outcome.agent.agent_id}` },
        };
      if (outcome.code === 'invalid')
        throw new Problem('validation_failed', 'The agent cannot be registered as given', { errors: outcome.errors });
      if (outcome.code === 'agent_uri_foreign_organization') throw new Problem(outcome.code, outcome.detail);
      throw new Problem(
        'agent_exists',
        `${body.agent_uri} is registered as ${outcome.agent_id}; change it with PATCH`,
        { extensions: { agent_id: outcome.agent_id } },
      );
    },
  });
}

function registerAgentChanges(agents: RouteGroup, deps: PlatformServiceDeps): void {
  agents.route({
    method: 'patch',
    path: '/v1/agents/{agent_id}',
    operationId: 'updateAgent',
    summary: 'Change an agent’s endpoint, capabilities, policy or status',
    auth: 'platform:admin',
    request: { params: AgentIdParamsSchema, body: UpdateAgentSchema },
    responses: {
      200: { description: 'The agent', schema: PlatformAgentSchema },
      404: { description: 'No such agent' },
    },
    handler: async ({ params, body, principal }) => {
      const outcome = await updateAgent(deps, principal, params.agent_id, body);
      if (outcome.ok) return { status: 200, body: agentView(outcome.agent) };
      if (outcome.code === 'invalid')
        throw new Problem('validation_failed', 'The agent cannot be changed as given', { errors: outcome.errors });
      throw new Problem('agent_not_found', `No agent ${params.agent_id}`);
    },
  });

  agents.route({
    method: 'post',
    path: '/v1/agents/{agent_id}/deployments',
    operationId: 'deployAgent',
    summary: 'Deploy a registered version of this agent to an environment',
    description:
      'Calls by agent id reach the version deployed to production, with the deployment’s parameters as defaults.',
    auth: 'platform:admin',
    request: { params: AgentIdParamsSchema, body: DeployAgentSchema },
    responses: {
      201: { description: 'The deployment', schema: DeploymentSchema },
      404: { description: 'No such agent' },
      422: { description: 'That version of the agent is not registered' },
    },
    handler: async ({ params, body, principal }) => {
      const outcome = await deployAgent(deps, principal, params.agent_id, body);
      if (!outcome.ok) throw new Problem(outcome.code, outcome.detail);
      return { status: 201, body: deploymentView(outcome.deployment) };
    },
  });
}

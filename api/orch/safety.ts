import type { Knex } from 'knex';
import { findAgentProfile } from '../../db/agents';
import { countEnabledRulesForDomain } from '../../db/escalation-rules';
import { findSafetyDomain, type SafetyDomainRow } from '../../db/safety';
import { runSafetyCheck } from '../../services/safety/check';
import { putDomainConfig } from '../../services/safety/config';
import type { Principal } from '../../services/identity/scopes';
import { Problem } from '../problem';
import type { ApiBuilder } from '../route';
import { routeGroup, type RouteGroup } from '../route-group';
import {
  PutSafetyConfigSchema,
  SafetyCheckRequestSchema,
  SafetyCheckResponseSchema,
  SafetyConfigSchema,
} from '../schemas/safety';
import { z } from '../schemas/zod';

const DomainSchema = z
  .string()
  .regex(/^[a-z0-9][a-z0-9_-]{0,62}$/, 'must be lower-case letters, digits, _ or -')
  .openapi({ example: 'healthcare' });

async function renderConfig(db: Knex, organizationId: string, row: SafetyDomainRow) {
  return {
    domain: row.domain,
    boundaries: row.boundaries,
    risk_thresholds: row.risk_thresholds,
    task_types: row.task_types,
    escalation_rules: await countEnabledRulesForDomain(db, organizationId, row.domain),
    version: row.version,
    last_updated: row.updated_at.toISOString(),
  };
}

/**
 * The actor a check is for: an agent key checks for its own agent (named or not), and an AI actor that names an
 * agent must be a registered, active one, whose profile the check then holds it to.
 */
async function checkedActor(
  db: Knex,
  principal: Principal,
  requested: z.infer<typeof SafetyCheckRequestSchema>['actor'],
) {
  const own = principal.kind === 'agent' ? principal.subject : undefined;
  if (own && requested.agent_id && requested.agent_id !== own)
    throw new Problem('agent_id_mismatch', `The API key belongs to ${own}, not ${requested.agent_id}`);
  const actor = { ...requested, agent_id: requested.agent_id ?? (requested.type === 'ai_agent' ? own : undefined) };
  const agent =
    actor.type === 'ai_agent' && actor.agent_id
      ? await findAgentProfile(db, principal.organization_id, actor.agent_id)
      : null;
  if (actor.type === 'ai_agent' && actor.agent_id && agent?.status !== 'active') {
    throw new Problem(
      'agent_not_registered',
      agent ? `Agent ${actor.agent_id} is ${agent.status}` : `No agent ${actor.agent_id} is registered`,
    );
  }
  return { actor, agent };
}

/** The safety check of an action, and the per-domain configuration it is judged by. */
export function registerSafetyRoutes(api: ApiBuilder, deps: { db: Knex }): void {
  const safety = routeGroup(api, { tags: ['Safety'], auth: 'orch:agent', rateLimit: 'safety-checks' });
  registerSafetyCheck(safety, deps);
  registerSafetyConfig(safety, deps);
}

function registerSafetyCheck(safety: RouteGroup, deps: { db: Knex }): void {
  safety.route({
    method: 'post',
    path: '/v1/orch/safety/check',
    operationId: 'checkSafety',
    summary:
      'Check an action against the safety boundaries of its domain, the actor’s constraints and the Rule of Threes',
    description:
      'The domain is context.domain, else the one listing the action as a task type, else general. An AI actor is held to capability, safety and risk ' +
      'boundaries, the Fourth Law (when confidence is given) and its registered constraints; every actor to context boundaries. The check is recorded ' +
      'with its provenance, and each violation emits safety.violation and safety.boundary_violation.',
    request: { body: SafetyCheckRequestSchema },
    responses: {
      200: { description: 'The verdict, violations, and Rule of Threes analysis', schema: SafetyCheckResponseSchema },
      403: {
        description:
          'agent_not_registered (actor.agent_id), or agent_id_mismatch (an agent key checking for another agent)',
      },
    },
    handler: async ({ body, principal }) => {
      const { actor, agent } = await checkedActor(deps.db, principal, body.actor);
      return {
        status: 200,
        body: await runSafetyCheck(deps.db, { action: body.action, context: body.context, actor }, agent, principal),
      };
    },
  });
}

function registerSafetyConfig(safety: RouteGroup, deps: { db: Knex }): void {
  safety.route({
    method: 'get',
    path: '/v1/orch/safety/config',
    operationId: 'getSafetyConfig',
    summary: 'A domain’s safety boundaries, risk thresholds and how many escalation rules apply there',
    auth: 'orch:read',
    request: { query: z.object({ domain: DomainSchema.default('general') }) },
    responses: {
      200: { description: 'The configuration', schema: SafetyConfigSchema },
      404: { description: 'safety_domain_not_found' },
    },
    handler: async ({ query, principal }) => {
      const row = await findSafetyDomain(deps.db, principal.organization_id, query.domain);
      if (!row)
        throw new Problem(
          'safety_domain_not_found',
          `No safety configuration for ${query.domain}; tasks there are judged by general’s. PUT /v1/orch/safety/config/${query.domain} creates one.`,
        );
      return { status: 200, body: await renderConfig(deps.db, principal.organization_id, row) };
    },
  });

  safety.route({
    method: 'put',
    path: '/v1/orch/safety/config/{domain}',
    operationId: 'putSafetyConfig',
    summary: 'Create or replace a domain’s boundaries, risk thresholds and task types (admin)',
    description:
      'Takes effect on the next routing and check; recorded in provenance as safety_config:<domain>, version by version.',
    auth: 'orch:admin',
    request: { params: z.object({ domain: DomainSchema }), body: PutSafetyConfigSchema },
    responses: { 200: { description: 'The configuration as stored', schema: SafetyConfigSchema } },
    handler: async ({ params, body, principal }) => {
      const row = await putDomainConfig(deps.db, { domain: params.domain, ...body }, principal);
      return { status: 200, body: await renderConfig(deps.db, principal.organization_id, row) };
    },
  });
}

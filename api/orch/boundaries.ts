import type { Knex } from 'knex';
import { boundaryAnswer, assessAction } from '../../domain/safety/verdict';
import { domainConfigFor } from '../../services/safety/domains';
import type { ApiBuilder } from '../route';
import { AgentHeadersSchema, BoundariesQuerySchema, BoundaryAnswerSchema } from '../schemas/agent-operations';
import { requireCallingAgent } from './calling-agent';

export function registerBoundaryRoutes(api: ApiBuilder, deps: { db: Knex }): void {
  api.route({
    method: 'get',
    path: '/v1/orch/boundaries',
    operationId: 'checkAgentBoundaries',
    summary: 'May the agent take this action, for this amount, alone? If not, who must approve it',
    description:
      'Judged like POST /safety/check for the calling agent, without recording anything (it asks; it does not act): the domain’s boundaries, the ' +
      'agent’s constraints (e.g. max_risk_level against the amount’s risk), the Rule of Threes. approval_tier: none, standard (low or medium risk), ' +
      'senior (high), executive (critical), not_permitted (a strict boundary with no escalation).',
    tags: ['Agent operations'],
    auth: 'orch:agent',
    rateLimit: 'safety-checks',
    request: { headers: AgentHeadersSchema, query: BoundariesQuerySchema },
    responses: {
      200: { description: 'The agent’s authority for the action', schema: BoundaryAnswerSchema },
      403: { description: 'agent_not_registered, or agent_id_mismatch' },
    },
    handler: async ({ headers, query, principal }) => {
      const agent = await requireCallingAgent(deps.db, principal, headers['x-agent-id']);
      const context: Record<string, unknown> = {
        ...(query.amount !== undefined ? { amount: query.amount } : {}),
        ...(query.domain ? { domain: query.domain } : {}),
      };
      const { domain, config } = await domainConfigFor(deps.db, principal.organization_id, {
        task_type: query.action,
        context,
      });
      const { risk, evaluation, verdict } = assessAction({
        action: query.action,
        context,
        actor: { type: 'ai_agent', agent_id: agent.agent_id },
        agent,
        config,
        domain,
      });
      return {
        status: 200,
        body: {
          agent_id: agent.agent_id,
          action: query.action,
          domain,
          risk_level: risk.level,
          ...boundaryAnswer(evaluation, verdict, risk.level),
          violations: evaluation.violations.map(({ boundary_id, reason, severity }) => ({
            boundary_id,
            reason,
            severity,
          })),
        },
      };
    },
  });
}

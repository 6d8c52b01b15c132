import type { Knex } from 'knex';
import { periodSeconds } from '../../domain/agents/performance';
import { performanceOf } from '../../services/agents/performance';
import { Problem } from '../problem';
import type { ApiBuilder } from '../route';
import { AgentPerformanceSchema } from '../schemas/agents';
import { z } from '../schemas/zod';
import { AgentParamsSchema } from './agents';

const PeriodQuerySchema = z.object({
  period: z
    .string()
    .default('30d')
    .refine(
      (period) => periodSeconds(period) !== undefined,
      'must be a number of hours, days or weeks, e.g. 24h, 30d, 4w (at most 9999)',
    )
    .openapi({ example: '30d' }),
});

export function registerAgentPerformanceRoutes(api: ApiBuilder, deps: { db: Knex }): void {
  api.route({
    method: 'get',
    path: '/v1/orch/agents/{agent_id}/performance',
    operationId: 'getAgentPerformance',
    summary: 'How an agent performed over a period, from the real outcomes of its routings',
    description:
      'Computed from the routings the agent brought in the period, their human resolutions, feedback on autonomous decisions ' +
      '(POST /v1/orch/routing/{routing_id}/feedback) and the agent’s safety checks; the trend compares with the period before.',
    tags: ['Agents'],
    auth: 'orch:read',
    rateLimit: 'agent-monitoring',
    request: { params: AgentParamsSchema, query: PeriodQuerySchema },
    responses: {
      200: { description: 'The agent’s performance', schema: AgentPerformanceSchema },
      404: { description: 'agent_not_found' },
    },
    handler: async ({ params, query, principal }) => {
      const performance = await performanceOf(
        deps.db,
        principal.organization_id,
        params.agent_id,
        new Date(),
        periodSeconds(query.period)!,
      );
      if (!performance) throw new Problem('agent_not_found', `No agent ${params.agent_id}`);
      return { status: 200, body: { agent_id: params.agent_id, period: query.period, ...performance } };
    },
  });
}

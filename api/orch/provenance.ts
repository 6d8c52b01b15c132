import type { Knex } from 'knex';
import { listProvenanceForSubject } from '../../db/ledger';
import { findRoutingById } from '../../db/routings';
import { accountabilityOf } from '../../domain/provenance';
import { Problem } from '../problem';
import type { ApiBuilder } from '../route';
import { LedgerAnchorSchema } from '../schemas/common';
import { RoutingIdParamsSchema } from '../schemas/routing';
import { z } from '../schemas/zod';

const ProvenanceHistorySchema = z
  .object({
    routing_id: z.string(),
    decision_chain: z.array(
      z.object({
        step_id: z.string(),
        timestamp: z.string(),
        actor: z.object({ type: z.enum(['ai_agent', 'orch_core', 'human']), agent_id: z.string().optional(), did: z.string().optional(), instance_id: z.string().optional() }),
        action: z.string(),
        input_data: z.record(z.string(), z.unknown()),
        output_data: z.record(z.string(), z.unknown()),
        reasoning: z.string(),
        rules_evaluated: z.array(z.object({ rule_id: z.string(), triggered: z.boolean(), reason: z.string() })).optional(),
      }),
    ),
    ledger_anchors: z.array(LedgerAnchorSchema.extend({ step_id: z.string() })),
    accountability: z.object({
      primary_decision_maker: z.string(),
      ai_support_provided: z.boolean(),
      human_oversight_present: z.boolean(),
      all_safety_checks_passed: z.boolean(),
    }),
  })
  .openapi('ProvenanceHistory');

export function registerProvenanceRoutes(api: ApiBuilder, deps: { db: Knex }): void {
  api.route({
    method: 'get',
    path: '/v1/orch/provenance/{routing_id}',
    operationId: 'getRoutingProvenance',
    summary: 'The decision chain of a routing, each step anchored in the ledger',
    tags: ['Provenance'],
    auth: 'orch:read',
    rateLimit: 'provenance-queries',
    request: { params: RoutingIdParamsSchema },
    responses: { 200: { description: 'Provenance history', schema: ProvenanceHistorySchema }, 404: { description: 'No such routing' } },
    handler: async ({ params }) => {
      const [routing, records] = await Promise.all([findRoutingById(deps.db, params.routing_id), listProvenanceForSubject(deps.db, params.routing_id)]);
      if (!routing && records.length === 0) throw new Problem('routing_not_found', `No routing ${params.routing_id}`);
      const chain = records.map((record) => record.entry);
      return {
        status: 200,
        body: {
          routing_id: params.routing_id,
          decision_chain: chain,
          ledger_anchors: records.map((record) => ({ step_id: record.entry.step_id, ...record.anchor })),
          accountability: accountabilityOf(chain, routing?.ai_agent_id),
        },
      };
    },
  });
}

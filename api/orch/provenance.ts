import type { Knex } from 'knex';
import { listProvenanceForSubject } from '../../db/ledger';
import { findRoutingById } from '../../db/routings';
import { accountabilityOf } from '../../domain/provenance/records';
import { inclusionBundle } from '../../services/ledger/proofs';
import { atTreeSize, bundleReply } from '../ledger';
import { Problem } from '../problem';
import type { ApiBuilder } from '../route';
import { routeGroup } from '../route-group';
import { LedgerAnchorSchema } from '../schemas/common';
import {
  InclusionBundleSchema,
  ProofPendingSchema,
  ProvenanceStepSchema,
  TreeSizeQuerySchema,
} from '../schemas/ledger';
import { RoutingIdParamsSchema } from '../schemas/routing';
import { z } from '../schemas/zod';

const ProvenanceHistorySchema = z
  .object({
    routing_id: z.string(),
    decision_chain: z.array(ProvenanceStepSchema),
    ledger_anchors: z.array(
      LedgerAnchorSchema.extend({
        step_id: z.string(),
        leaf_index: z
          .number()
          .int()
          .nullable()
          .openapi({ description: 'The record’s position in the log; null until its block is sealed' }),
      }),
    ),
    accountability: z.object({
      primary_decision_maker: z.string(),
      ai_support_provided: z.boolean(),
      human_oversight_present: z.boolean(),
      all_safety_checks_passed: z.boolean(),
    }),
    proof_url: z.string().openapi({ description: 'Where the inclusion bundle of every step is, to verify offline' }),
  })
  .openapi('ProvenanceHistory');

async function routingRecords(db: Knex, organizationId: string, routingId: string) {
  const [routing, records] = await Promise.all([
    findRoutingById(db, organizationId, routingId),
    listProvenanceForSubject(db, routingId, organizationId),
  ]);
  if (!routing && records.length === 0) throw new Problem('routing_not_found', `No routing ${routingId}`);
  return { routing, records };
}

export function registerProvenanceRoutes(api: ApiBuilder, deps: { db: Knex; blockMaxAgeMs: number }): void {
  const provenance = routeGroup(api, { tags: ['Provenance'], auth: 'orch:read', rateLimit: 'provenance-queries' });
  provenance.route({
    method: 'get',
    path: '/v1/orch/provenance/{routing_id}',
    operationId: 'getRoutingProvenance',
    summary: 'The decision chain of a routing, each step anchored in the ledger',
    request: { params: RoutingIdParamsSchema },
    responses: {
      200: { description: 'Provenance history', schema: ProvenanceHistorySchema },
      404: { description: 'No such routing' },
    },
    handler: async ({ params, principal }) => {
      const { routing, records } = await routingRecords(deps.db, principal.organization_id, params.routing_id);
      const chain = records.map((record) => record.entry);
      return {
        status: 200,
        body: {
          routing_id: params.routing_id,
          decision_chain: chain.map(({ subject_id: _subject, ...step }) => step),
          ledger_anchors: records.map((record) => ({
            step_id: record.entry.step_id,
            ...record.anchor,
            leaf_index: record.leaf_index,
          })),
          accountability: accountabilityOf(chain, routing?.ai_agent_id),
          proof_url: `/v1/orch/provenance/${params.routing_id}/proof`,
        },
      };
    },
  });

  provenance.route({
    method: 'get',
    path: '/v1/orch/provenance/{routing_id}/proof',
    operationId: 'getRoutingProvenanceProof',
    summary: 'An inclusion bundle for every step of a routing, against one signed checkpoint',
    description: 'Verify it offline with the log’s public key: `npm run verify -- --key "<verifier_key>" bundle.json`.',
    request: { params: RoutingIdParamsSchema, query: TreeSizeQuerySchema },
    responses: {
      200: { description: 'The bundle', schema: InclusionBundleSchema },
      202: {
        description: 'A step’s block is not sealed yet; retry after Retry-After seconds',
        schema: ProofPendingSchema,
      },
      404: { description: 'No such routing, or no checkpoint of that tree size' },
      422: { description: 'A step is not in the tree of that size' },
    },
    handler: async ({ params, query, principal }) => {
      const { records } = await routingRecords(deps.db, principal.organization_id, params.routing_id);
      return bundleReply(await inclusionBundle(deps.db, records, atTreeSize(query.tree_size)), deps.blockMaxAgeMs);
    },
  });
}

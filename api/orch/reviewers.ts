import type { Client } from '@temporalio/client';
import type { Knex } from 'knex';
import { listReviewers } from '../../db/reviewers';
import { saveReviewer } from '../../services/routing/queue';
import { parseSort, withCursorProblems } from '../middleware/pagination';
import { Problem } from '../problem';
import type { ApiBuilder } from '../route';
import { DidSchema, listQuerySchema, pageSchema } from '../schemas/common';
import { z } from '../schemas/zod';

const ReviewerSchema = z
  .object({
    did: z.string(),
    passport_id: z.string().nullable().openapi({ description: 'The Passport that is this reviewer: only it (or its delegate) resolves what the reviewer is assigned' }),
    display_name: z.string(),
    capabilities: z.record(z.string(), z.number()).openapi({ example: { medical_diagnosis: 0.9 } }),
    chain_level: z.number().int(),
    available: z.boolean(),
    capacity: z.number().int().nullable().openapi({ description: 'Most open assignments the reviewer takes; null: no limit' }),
    open_assignments: z.number().int().openapi({ description: 'Current load: routings waiting on this reviewer' }),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .openapi('Reviewer');

const PutReviewerSchema = z
  .object({
    display_name: z.string().min(1).max(200),
    capabilities: z.record(z.string().min(1).max(200), z.number().min(0).max(1)).default({}),
    chain_level: z.number().int().min(1).max(20).default(1),
    available: z.boolean().default(true),
    capacity: z.number().int().min(1).max(10_000).nullable().default(null).openapi({ description: 'Most open assignments; a reviewer at capacity is skipped' }),
    passport_id: z
      .string()
      .regex(/^pp_[A-Za-z0-9_-]{1,64}$/, 'must be a Passport id (pp_…)')
      .optional()
      .openapi({ description: 'The Passport that is this reviewer; default: the Passport whose DID is the reviewer’s, if any' }),
  })
  .strict()
  .openapi('PutReviewerRequest');

const ListReviewersQuerySchema = listQuerySchema.extend({
  available: z.enum(['true', 'false']).transform((value) => value === 'true').optional(),
  capability: z.string().min(1).optional(),
});

const SORTABLE = { did: 'reviewers.did', chain_level: 'reviewers.chain_level', created_at: 'reviewers.created_at' };

const render = (row: {
  did: string;
  passport_id: string | null;
  display_name: string;
  capabilities: Record<string, number>;
  chain_level: number;
  available: boolean;
  capacity: number | null;
  open_assignments: number;
  created_at: Date;
  updated_at: Date;
}) => ({
  ...row,
  created_at: row.created_at.toISOString(),
  updated_at: row.updated_at.toISOString(),
});

export function registerReviewerRoutes(api: ApiBuilder, deps: { db: Knex; temporal: Client }): void {
  api.route({
    method: 'get',
    path: '/v1/orch/reviewers',
    operationId: 'listReviewers',
    summary: 'List the human reviewers routings are assigned to',
    tags: ['Reviewers'],
    auth: 'orch:read',
    rateLimit: 'default',
    request: { query: ListReviewersQuerySchema },
    responses: { 200: { description: 'A page of reviewers', schema: pageSchema(ReviewerSchema, 'ReviewerPage') } },
    handler: async ({ query, principal }) => {
      const sort = parseSort(query.sort, { allowed: SORTABLE, fallback: 'chain_level', uniqueKey: 'reviewers.did' });
      const page = await withCursorProblems(listReviewers(deps.db, principal.organization_id, { limit: query.limit, cursor: query.cursor, sort }, query));
      return { status: 200, body: { ...page, data: page.data.map(render) } };
    },
  });

  api.route({
    method: 'put',
    path: '/v1/orch/reviewers/{did}',
    operationId: 'putReviewer',
    summary: 'Create or replace a reviewer (admin)',
    description:
      'An available reviewer is offered at once to the routings queued for want of one (each takes them if they qualify). The reviewer is ' +
      'linked to a Passport (passport_id, else the Passport with this DID): a routing assigned to the reviewer is resolved only by that person.',
    tags: ['Reviewers'],
    auth: 'orch:admin',
    rateLimit: 'default',
    request: { params: z.object({ did: DidSchema }), body: PutReviewerSchema },
    responses: { 204: { description: 'Stored' }, 422: { description: 'reviewer_passport_not_found: passport_id names no Passport' } },
    handler: async ({ params, body, principal }) => {
      const saved = await saveReviewer(deps, principal.organization_id, { did: params.did, ...body });
      if (!saved.ok) throw new Problem('reviewer_passport_not_found', saved.detail);
      return { status: 204 };
    },
  });
}

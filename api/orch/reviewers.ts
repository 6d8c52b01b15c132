import type { Client } from '@temporalio/client';
import type { Request } from 'express';
import type { Knex } from 'knex';
import { match } from 'path-to-regexp';
import { listReviewers } from '../../db/reviewers';
import { saveReviewer } from '../../services/routing/queue';
import type { Principal } from '../../services/identity/scopes';
import { OPERATION_CAPABILITIES } from '../capabilities';
import { mayDo } from '../middleware/auth';
import { Problem } from '../problem';
import type { ApiBuilder } from '../route';
import { routeGroup } from '../route-group';
import { DidSchema, listQuerySchema, WeightSchema } from '../schemas/common';
import { z } from '../schemas/zod';

const ReviewerSchema = z
  .object({
    did: z.string(),
    passport_id: z.string().nullable().openapi({
      description:
        'The Passport that is this reviewer: only it (or its delegate) resolves what the reviewer is assigned',
    }),
    display_name: z.string(),
    email: z.string().nullable().openapi({
      description:
        'Where the reviewer is e-mailed what waits for them, with one-click decision links; null to a caller who may not manage reviewers (orch:admin)',
    }),
    slack_user_id: z.string().nullable().openapi({
      description:
        'The reviewer’s Slack user: only they may click the Slack buttons sent for them; null to a caller who may not manage reviewers (orch:admin)',
    }),
    capabilities: z.record(z.string(), z.number()).openapi({ example: { medical_diagnosis: 0.9 } }),
    chain_level: z.number().int(),
    available: z.boolean(),
    capacity: z
      .number()
      .int()
      .nullable()
      .openapi({ description: 'Most open assignments the reviewer takes; null: no limit' }),
    open_assignments: z.number().int().openapi({ description: 'Current load: routings waiting on this reviewer' }),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .openapi('Reviewer');

const PutReviewerSchema = z
  .object({
    display_name: z.string().min(1).max(200),
    email: z.email().max(254).nullable().default(null).openapi({
      description: 'Where to e-mail the reviewer what waits for them, with one-click decision links; null: no mail',
    }),
    slack_user_id: z
      .string()
      .regex(/^[UW][A-Z0-9]{2,20}$/, 'must be a Slack user id (U… or W…)')
      .nullable()
      .default(null)
      .openapi({
        description: 'The reviewer’s Slack user id: the only user whose clicks on their Slack buttons count',
      }),
    capabilities: z.record(z.string().min(1).max(200), WeightSchema).default({}),
    chain_level: z.number().int().min(1).max(20).default(1),
    available: z.boolean().default(true),
    capacity: z
      .number()
      .int()
      .min(1)
      .max(10_000)
      .nullable()
      .default(null)
      .openapi({ description: 'Most open assignments; a reviewer at capacity is skipped' }),
    passport_id: z
      .string()
      .regex(/^pp_[A-Za-z0-9_-]{1,64}$/, 'must be a Passport id (pp_…)')
      .optional()
      .openapi({
        description: 'The Passport that is this reviewer; default: the Passport whose DID is the reviewer’s, if any',
      }),
  })
  .strict()
  .openapi('PutReviewerRequest');

const REVIEWER_PATH = '/v1/orch/reviewers/{did}';
const rawReviewerPath = match<{ did: string }>(REVIEWER_PATH.replace('{did}', ':did'), { decode: false });

/** A value as a path segment writes it with nothing escaped that a segment holds as it is (RFC 3986 pchar: `:` `@` and sub-delims). */
function asPathSegment(value: string): string {
  return encodeURIComponent(value).replace(/%(?:3A|40|24|26|2B|2C|3B|3D)/g, (escaped) => decodeURIComponent(escaped));
}

/**
 * Whether the DID the router decoded is the one the client meant. Express decodes the segment once
 * (decodeURIComponent), so a DID's own `%3A` sent as it is arrives as `:`: another DID. The segment is taken only
 * when it is the decoded DID written one of the two unambiguous ways: percent-encoded as a whole, or as it is
 * with only what a segment cannot hold escaped (a `%` as `%25`).
 */
function didRoundTrips(req: Request, decoded: string): boolean {
  const matched = rawReviewerPath(req.originalUrl.split('?')[0]!);
  if (!matched) return false;
  const sent = matched.params.did.replace(/%[0-9a-f]{2}/gi, (escaped) => escaped.toUpperCase());
  return sent === encodeURIComponent(decoded) || sent === asPathSegment(decoded);
}

const DID_PARAM_DESCRIPTION =
  'The reviewer’s DID, percent-encoded as a whole (encodeURIComponent) or sent as it is with each `%` written `%25`: a DID whose own text ' +
  'holds `%3A` (a did:web with a port) is did%3Aweb%3Aexample.com%253A8443%3Ar or did:web:example.com%253A8443:r. A segment that is neither ' +
  '(a raw `%3A` beside a raw `:`) would name another DID once decoded, and is refused (400 did_encoding_ambiguous).';

const ListReviewersQuerySchema = listQuerySchema.extend({
  available: z
    .enum(['true', 'false'])
    .transform((value) => value === 'true')
    .optional(),
  capability: z.string().min(1).optional(),
});

const SORTABLE = { did: 'reviewers.did', chain_level: 'reviewers.chain_level', created_at: 'reviewers.created_at' };

const render = (
  row: {
    did: string;
    passport_id: string | null;
    display_name: string;
    email: string | null;
    slack_user_id: string | null;
    capabilities: Record<string, number>;
    chain_level: number;
    available: boolean;
    capacity: number | null;
    open_assignments: number;
    created_at: Date;
    updated_at: Date;
  },
  principal: Principal,
) => {
  // A reviewer's e-mail and Slack user reach their notifications; only those who manage reviewers read them.
  const contact = mayDo(principal, 'orch:admin', OPERATION_CAPABILITIES['PUT /v1/orch/reviewers/{did}'])
    ? {}
    : { email: null, slack_user_id: null };
  return {
    ...row,
    ...contact,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
};

export function registerReviewerRoutes(api: ApiBuilder, deps: { db: Knex; temporal: Client }): void {
  const reviewers = routeGroup(api, { tags: ['Reviewers'], auth: 'orch:read', rateLimit: 'default' });
  reviewers.list({
    path: '/v1/orch/reviewers',
    operationId: 'listReviewers',
    summary: 'List the human reviewers routings are assigned to',
    query: ListReviewersQuerySchema,
    page: { description: 'A page of reviewers', item: ReviewerSchema, name: 'ReviewerPage' },
    sort: { allowed: SORTABLE, fallback: 'chain_level', uniqueKey: 'reviewers.did' },
    list: ({ query, principal, page }) => listReviewers(deps.db, principal.organization_id, page, query),
    view: render,
  });

  reviewers.route({
    method: 'put',
    path: REVIEWER_PATH,
    operationId: 'putReviewer',
    summary: 'Create or replace a reviewer (admin)',
    description:
      'An available reviewer is offered at once to the routings queued for want of one (each takes them if they qualify). The reviewer is ' +
      'linked to a Passport (passport_id, else the Passport with this DID): a routing assigned to the reviewer is resolved only by that person.',
    auth: 'orch:admin',
    request: {
      params: z.object({ did: DidSchema.openapi({ description: DID_PARAM_DESCRIPTION }) }),
      body: PutReviewerSchema,
    },
    responses: {
      204: { description: 'Stored' },
      400: {
        description:
          'did_encoding_ambiguous: the DID in the path is encoded neither as a whole nor with only what a segment cannot hold (`%` as `%25`)',
      },
      422: { description: 'reviewer_passport_not_found: passport_id names no Passport' },
    },
    handler: async ({ req, params, body, principal }) => {
      if (!didRoundTrips(req, params.did)) {
        throw new Problem(
          'did_encoding_ambiguous',
          `The path names ${params.did} once decoded, which is not written as sent; encode the DID as a whole, or write each % of it as %25`,
        );
      }
      const saved = await saveReviewer(deps, principal.organization_id, { did: params.did, ...body });
      if (!saved.ok) throw new Problem('reviewer_passport_not_found', saved.detail);
      return { status: 204 };
    },
  });
}

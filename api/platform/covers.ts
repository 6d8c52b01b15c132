import type { Knex } from 'knex';
import { coverFromRow, findCover, listCovers, type CoverRow } from '../../db/covers';
import { createCover, endCoverEarly, type CoverRefusal } from '../../services/covers/covers';
import { grants, type Principal } from '../../services/identity/scopes';
import { Problem } from '../problem';
import type { ApiBuilder } from '../route';
import { routeGroup } from '../route-group';
import { cover, CoverIdParamsSchema, CoverSchema, CreateCoverSchema, ListCoversQuerySchema } from '../schemas/covers';

const REFUSALS = {
  400: { description: 'validation_failed: covering yourself, an end before the start or already past, over 90 days' },
  403: { description: 'person_required, or cover_not_yours: someone else’s cover without people:enroll' },
};

function refused(outcome: CoverRefusal): never {
  if (outcome.code === 'validation_failed')
    throw new Problem('validation_failed', 'The cover cannot be set as given', { errors: outcome.errors });
  throw new Problem(outcome.code, outcome.detail);
}

/** Whose covers a caller may list: an administrator anyone's, a person their own, any other caller none. */
function listedParty(principal: Principal, party: string | undefined): string | undefined {
  if (grants(principal.scopes, 'people:enroll')) return party;
  const own = principal.actor?.did;
  if (!own) throw new Problem('person_required', 'Sign in as a person to list your covers, or hold people:enroll');
  if (party && party !== own) throw new Problem('cover_not_yours', 'A person lists only the covers they give or take');
  return own;
}

/** Covers: a person's approvals handed to a colleague for a window, applied when a request opens. */
export function registerCoverRoutes(api: ApiBuilder, deps: { db: Knex }): void {
  const covers = routeGroup(api, { tags: ['Approvals'], auth: 'platform:write', rateLimit: 'default' });
  covers.route({
    method: 'post',
    path: '/v1/covers',
    operationId: 'createCover',
    summary: 'Hand your approvals to a colleague for a window',
    description:
      'A request opened (or escalated to you) while the cover is in force names the colleague instead, and its records say ' +
      '“Bea, covering for Ada”. A request open already keeps its approver. The colleague is skipped when they are the ' +
      'requester or hold a seat on the request already. A routing assigned to you while the cover is in force (at its decision, up the ' +
      'escalation chain, from the queue or by an escalation request) goes to the colleague when they are an available reviewer of the ' +
      'organization (their reviewer DID, or one linked to their Passport), with covering_for in its assigned_to, its records and its ' +
      'escalation events; with capabilities, only a routing whose every required capability is one of them. Set by the person signed in ' +
      'with their own credential, or by an administrator (people:enroll).',
    request: { body: CreateCoverSchema },
    responses: {
      201: { description: 'The cover', schema: CoverSchema, headers: { Location: { description: 'The cover’s URL' } } },
      ...REFUSALS,
    },
    handler: async ({ req, body, principal }) => {
      const outcome = await createCover(deps.db, principal, body, req.get('idempotency-key'));
      if (!outcome.ok) refused(outcome);
      return {
        status: 201,
        body: cover.of(outcome.cover),
        headers: { Location: `/v1/covers/${outcome.cover.cover_id}` },
      };
    },
  });

  covers.list({
    path: '/v1/covers',
    operationId: 'listCovers',
    summary: 'Covers you give or take (an administrator: the organization’s)',
    auth: 'platform:read',
    query: ListCoversQuerySchema,
    page: { description: 'A page of covers, newest first by default', item: CoverSchema, name: 'CoverPage' },
    sort: { allowed: { created_at: 'created_at', ends_at: 'ends_at' }, fallback: '-created_at', uniqueKey: 'cover_id' },
    list: ({ query, principal, page }) =>
      listCovers(deps.db, principal.organization_id, page, {
        party: listedParty(principal, query.party),
        active_at: query.active === 'true' ? new Date() : undefined,
      }),
    view: (row) => cover.of(coverFromRow(row)),
  });

  covers.get({
    params: CoverIdParamsSchema,
    path: '/v1/covers/{cover_id}',
    operationId: 'getCover',
    summary: 'A cover',
    auth: 'platform:read',
    found: { description: 'The cover', schema: CoverSchema },
    missing: { code: 'cover_not_found', description: 'No such cover in your organization' },
    find: ({ params, principal }) => findCover(deps.db, principal.organization_id, params.cover_id),
    view: (row: CoverRow) => cover.of(coverFromRow(row)),
  });

  covers.route({
    method: 'delete',
    path: '/v1/covers/{cover_id}',
    operationId: 'endCover',
    summary: 'End a cover early',
    description: 'Requests opened from now on name the person again; those opened under the cover keep the colleague.',
    request: { params: CoverIdParamsSchema },
    responses: {
      200: { description: 'The cover, with ended_at (unchanged when it had ended already)', schema: CoverSchema },
      404: { description: 'No such cover in your organization' },
      403: REFUSALS[403],
    },
    handler: async ({ params, principal }) => {
      const outcome = await endCoverEarly(deps.db, principal, params.cover_id);
      if (!outcome.ok && outcome.code === 'cover_not_found') throw new Problem('cover_not_found');
      if (!outcome.ok) refused(outcome);
      return { status: 200, body: cover.of(outcome.cover) };
    },
  });
}

import type { Knex } from 'knex';
import { findGrant, GRANT_SORTABLE, listGrants } from '../../db/capability-grants';
import { ownCapabilityName } from '../../domain/capabilities/uris';
import { grantCapabilities, passportCapabilities, revokeCapabilityGrant } from '../../services/capabilities/grants';
import { orgSegments } from '../../services/capabilities/definitions';
import { Problem } from '../problem';
import type { ApiBuilder } from '../route';
import { routeGroup, type RouteGroup } from '../route-group';
import { PassportCapabilitiesSchema } from '../schemas/capabilities';
import {
  CapabilityGrantSchema,
  GrantCapabilitiesSchema,
  GrantParamsSchema,
  GrantsPageItems,
  ListGrantsQuerySchema,
  RevokeGrantSchema,
  grantView,
} from '../schemas/capability-grants';
import { PassportIdParamsSchema } from '../schemas/passports';

/** Grants of capabilities to agents and people: grant, list, read, revoke; and a Passport's capabilities. */
export function registerCapabilityGrantRoutes(api: ApiBuilder, deps: { db: Knex }): void {
  const grants = routeGroup(api, { tags: ['Capabilities'], auth: 'platform:admin', rateLimit: 'default' });
  registerGrant(grants, deps);
  grants.list({
    path: '/v1/capability-grants',
    operationId: 'listCapabilityGrants',
    summary: 'List capability grants',
    auth: 'platform:read',
    query: ListGrantsQuerySchema,
    page: { description: 'A page of grants', item: CapabilityGrantSchema, name: 'CapabilityGrantPage' },
    sort: { allowed: GRANT_SORTABLE, fallback: '-created_at', uniqueKey: 'grant_id' },
    list: async ({ query, principal, page }) => {
      const capability = query.capability_id
        ? (ownCapabilityName(query.capability_id, (await orgSegments(deps.db, principal.organization_id)).own) ?? '-')
        : undefined;
      return listGrants(deps.db, principal.organization_id, page, {
        subject_did: query.subject_did,
        capability_name: capability,
        live_at: query.live === 'true' ? new Date().toISOString() : undefined,
      });
    },
    view: grantView,
  });
  grants.get({
    path: '/v1/capability-grants/{grant_id}',
    operationId: 'getCapabilityGrant',
    summary: 'Read a capability grant',
    auth: 'platform:read',
    params: GrantParamsSchema,
    found: { description: 'The grant', schema: CapabilityGrantSchema },
    missing: { code: 'capability_grant_not_found' },
    find: ({ params, principal }) => findGrant(deps.db, principal.organization_id, params.grant_id),
    view: grantView,
  });
  registerRevoke(grants, deps);
  grants.get({
    path: '/v1/passports/{passport_id}/capabilities',
    operationId: 'getPassportCapabilities',
    summary: 'The capabilities a Passport holds now',
    description:
      'Its DID’s live grants and what they imply, each with the grant it comes from (the strongest, when several do).',
    auth: 'platform:read',
    params: PassportIdParamsSchema,
    found: { description: 'The Passport’s capabilities', schema: PassportCapabilitiesSchema },
    missing: { code: 'passport_not_found' },
    find: ({ params, principal }) => passportCapabilities(deps.db, principal, params.passport_id),
    view: ({ passport, capabilities }) => ({
      passportId: passport.passport_id,
      did: passport.did,
      capabilities: capabilities.map((held) => ({
        capabilityId: held.capability_id,
        weight: held.weight,
        grantId: held.grant_id,
        issuer: held.issuer_did,
        expiresAt: held.expires_at,
        impliedBy: held.implied_by,
      })),
    }),
  });
}

function registerGrant(grants: RouteGroup, deps: { db: Knex }): void {
  grants.route({
    method: 'post',
    path: '/v1/capability-grants',
    operationId: 'grantCapabilities',
    summary: 'Grant capabilities to an agent or a person',
    description:
      'One grant per capability, all or none, with the weight, an optional expiry (a reviewer covering a colleague’s queue for two weeks) and the ' +
      'issuing Passport (the organization’s unless issuerPassportId names an agent or organization Passport of yours), whose key signs the ' +
      'grant’s proofs. evidence may cite a course completion of the same subject whose course teaches every capability.',
    request: { body: GrantCapabilitiesSchema },
    responses: {
      201: { description: 'The grants', schema: GrantsPageItems },
      409: { description: 'issuer_passport_missing' },
      422: {
        description:
          'capability_not_defined, grant_expiry_past, agent_passport_not_found, issuer_passport_not_found, course_completion_not_found, evidence_mismatch',
      },
    },
    handler: async ({ body, principal }) => {
      const outcome = await grantCapabilities(deps.db, principal, body);
      if (!outcome.ok) throw new Problem(outcome.code, 'detail' in outcome ? outcome.detail : undefined);
      return { status: 201, body: { data: outcome.grants.map(grantView) } };
    },
  });
}

function registerRevoke(grants: RouteGroup, deps: { db: Knex }): void {
  grants.route({
    method: 'post',
    path: '/v1/capability-grants/{grant_id}/revoke',
    operationId: 'revokeCapabilityGrant',
    summary: 'Revoke a capability grant',
    description:
      'At once: the grant never matches and its proofs fail. Revoking again answers the first revocation with 200.',
    request: { params: GrantParamsSchema, body: RevokeGrantSchema },
    responses: {
      201: { description: 'The revoked grant', schema: CapabilityGrantSchema },
      200: { description: 'It was already revoked', schema: CapabilityGrantSchema },
      404: { description: 'capability_grant_not_found' },
    },
    handler: async ({ params, body, principal }) => {
      const outcome = await revokeCapabilityGrant(deps.db, principal, params.grant_id, body.reason);
      if (!outcome.ok) throw new Problem('capability_grant_not_found');
      return { status: outcome.revoked_now ? 201 : 200, body: grantView(outcome.grant) };
    },
  });
}

import { listRevocations } from '../../db/delegation';
import { type DelegationDeps, delegationScope } from '../../services/identity/delegations/context';
import { delegationStatus } from '../../services/identity/delegations/status';
import { revokeDelegation } from '../../services/identity/delegations/revoke';
import { listRoute } from '../list-route';
import { Problem } from '../problem';
import type { ApiBuilder } from '../route';
import {
  DelegationIdParamsSchema,
  DelegationStatusSchema,
  delegationStatusView,
  ListRevocationsQuerySchema,
  REVOCATION_SORTABLE,
  RevocationSchema,
  RevocationStatusSchema,
  revocationStatusView,
  revocationView,
  RevokeDelegationSchema,
} from '../schemas/delegation';

const tags = ['Delegation'];

/** A delegation as a whole: revoking it, its revocations, and its status. */
export function registerDelegationRevocationRoutes(api: ApiBuilder, deps: DelegationDeps): void {
  registerRevokeDelegation(api, deps);
  listRoute(api, {
    path: '/v1/delegations/revocations',
    operationId: 'listDelegationRevocations',
    summary: 'List revocations',
    description: 'Newest first by default; filter by revoked_by (a DID) and since (revoked_at at or after).',
    tags,
    auth: 'platform:read',
    rateLimit: 'default',
    query: ListRevocationsQuerySchema,
    page: { description: 'A page of revocations', item: RevocationSchema, name: 'DelegationRevocationPage' },
    sort: { allowed: REVOCATION_SORTABLE, fallback: '-revoked_at', uniqueKey: 'delegation_revocations.id' },
    list: ({ query, principal, page }) =>
      listRevocations(deps.db, delegationScope(principal), page, {
        revoked_by: query.revoked_by,
        since: query.since ? new Date(query.since) : undefined,
      }),
    view: revocationView,
  });
  registerDelegationStatus(api, deps);
}

function registerRevokeDelegation(api: ApiBuilder, deps: DelegationDeps): void {
  api.route({
    method: 'post',
    path: '/v1/delegations/{delegation_id}/revoke',
    operationId: 'revokeDelegation',
    summary: 'Revoke a delegation permanently',
    description:
      'Every token of the delegation, and of every delegation made from it, is refused by every API instance within a second. Permanent; ' +
      'revoking again returns the first revocation with 200.',
    tags,
    auth: 'platform:write',
    rateLimit: 'default',
    request: { params: DelegationIdParamsSchema, body: RevokeDelegationSchema },
    responses: {
      201: { description: 'The revocation', schema: RevocationSchema },
      200: { description: 'The delegation was already revoked: its revocation', schema: RevocationSchema },
      403: { description: 'revoked_by_mismatch' },
      404: { description: 'delegation_not_found' },
    },
    handler: async ({ params, body, principal }) => {
      const outcome = await revokeDelegation(deps, principal, params.delegation_id, body);
      if (!outcome.ok) throw new Problem(outcome.code, 'detail' in outcome ? outcome.detail : undefined);
      return { status: outcome.created ? 201 : 200, body: revocationView(outcome.revocation) };
    },
  });
}

function registerDelegationStatus(api: ApiBuilder, deps: DelegationDeps): void {
  api.route({
    method: 'get',
    path: '/v1/delegations/{delegation_id}/revocation',
    operationId: 'getDelegationRevocationStatus',
    summary: 'Is a delegation revoked',
    tags,
    auth: 'platform:read',
    rateLimit: 'default',
    request: { params: DelegationIdParamsSchema },
    responses: {
      200: { description: 'Whether it is revoked, and the revocation', schema: RevocationStatusSchema },
      404: { description: 'delegation_not_found' },
    },
    handler: async ({ params, principal }) => {
      const found = await delegationStatus(deps, principal, params.delegation_id);
      if (!found) throw new Problem('delegation_not_found');
      return { status: 200, body: revocationStatusView(params.delegation_id, found.revocation) };
    },
  });

  api.route({
    method: 'get',
    path: '/v1/delegations/{delegation_id}',
    operationId: 'getDelegationStatus',
    summary: 'Read a delegation and its status',
    tags,
    auth: 'platform:read',
    rateLimit: 'default',
    request: { params: DelegationIdParamsSchema },
    responses: {
      200: { description: 'The delegation', schema: DelegationStatusSchema },
      404: { description: 'delegation_not_found' },
    },
    handler: async ({ params, principal }) => {
      const found = await delegationStatus(deps, principal, params.delegation_id);
      if (!found) throw new Problem('delegation_not_found');
      return { status: 200, body: delegationStatusView(found.delegation, found.status, found.revocation) };
    },
  });
}

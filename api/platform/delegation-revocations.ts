import { listRevocations } from '../../db/delegation';
import { type DelegationDeps, delegationScope } from '../../services/identity/delegations/context';
import type { Principal } from '../../services/identity/scopes';
import { delegationStatus } from '../../services/identity/delegations/status';
import { revokeDelegation } from '../../services/identity/delegations/revoke';
import { Problem } from '../problem';
import type { RouteGroup } from '../route-group';
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

/** A delegation as a whole: revoking it, its revocations, and its status (the delegation routers' group). */
export function registerDelegationRevocationRoutes(delegation: RouteGroup, deps: DelegationDeps): void {
  registerRevokeDelegation(delegation, deps);
  delegation.list({
    path: '/v1/delegations/revocations',
    operationId: 'listDelegationRevocations',
    summary: 'List revocations',
    description: 'Newest first by default; filter by revoked_by (a DID) and since (revoked_at at or after).',
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
  registerDelegationStatus(delegation, deps);
}

function registerRevokeDelegation(delegation: RouteGroup, deps: DelegationDeps): void {
  delegation.route({
    method: 'post',
    path: '/v1/delegations/{delegation_id}/revoke',
    operationId: 'revokeDelegation',
    summary: 'Revoke a delegation permanently',
    description:
      'Every token of the delegation, and of every delegation made from it, is refused by every API instance within a second. Permanent; ' +
      'revoking again returns the first revocation with 200. A delegation token revokes only its own delegation or one made from it; a session ' +
      'its Passport’s delegations; an organization-level caller (access token, service account, personal access token) any of its organization.',
    auth: 'platform:write',
    request: { params: DelegationIdParamsSchema, body: RevokeDelegationSchema },
    responses: {
      201: { description: 'The revocation', schema: RevocationSchema },
      200: { description: 'The delegation was already revoked: its revocation', schema: RevocationSchema },
      403: {
        description:
          'revoked_by_mismatch; or delegation_outside_chain: the caller’s delegation token is neither this delegation nor one above it (a narrowed or an agent’s token aiming at its root, say)',
      },
      404: { description: 'delegation_not_found' },
    },
    handler: async ({ params, body, principal }) => {
      const outcome = await revokeDelegation(deps, principal, params.delegation_id, body);
      if (!outcome.ok) throw new Problem(outcome.code, 'detail' in outcome ? outcome.detail : undefined);
      return { status: outcome.created ? 201 : 200, body: revocationView(outcome.revocation) };
    },
  });
}

/** A delegation's revocation status, and the delegation with it: the same read, shown two ways. */
function registerDelegationStatus(delegation: RouteGroup, deps: DelegationDeps): void {
  const status = {
    params: DelegationIdParamsSchema,
    missing: { code: 'delegation_not_found' as const },
    find: ({ params, principal }: { params: { delegation_id: string }; principal: Principal }) =>
      delegationStatus(deps, principal, params.delegation_id),
  };
  delegation.get({
    ...status,
    path: '/v1/delegations/{delegation_id}/revocation',
    operationId: 'getDelegationRevocationStatus',
    summary: 'Is a delegation revoked',
    found: { description: 'Whether it is revoked, and the revocation', schema: RevocationStatusSchema },
    view: (found) => revocationStatusView(found.delegation.delegation_id, found.revocation),
  });

  delegation.get({
    ...status,
    path: '/v1/delegations/{delegation_id}',
    operationId: 'getDelegationStatus',
    summary: 'Read a delegation and its status',
    found: { description: 'The delegation', schema: DelegationStatusSchema },
    view: (found) => delegationStatusView(found.delegation, found.status, found.revocation),
  });
}

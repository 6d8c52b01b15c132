import type { Knex } from 'knex';
import { listServiceAccounts, type ServiceAccountSummary } from '../../db/credentials';
import { createServiceAccount, revokeServiceAccount } from '../../services/identity/issuance/access-tokens';
import { isGrantableScope, SCOPES } from '../../services/identity/scopes';
import { Problem } from '../problem';
import type { ApiBuilder } from '../route';
import { routeGroup, type RouteGroup } from '../route-group';
import { listQuerySchema } from '../schemas/common';
import { z } from '../schemas/zod';

/** The scopes a credential made through the API may hold; the creator's own must cover them (scopesNotHeldProblem). */
export const GrantableScopesSchema = z
  .array(
    z
      .string()
      .max(200)
      .refine(isGrantableScope, {
        message: `must be one of ${SCOPES.join(', ')}, or a prompt grant prompt:<read|publish|rollback|deprecate|*>:<key, key prefix followed by *, or *>`,
      }),
  )
  .min(1)
  .openapi({ description: `Scopes of ${SCOPES.join(', ')}, or per-key prompt grants such as prompt:read:support-*` });

const ServiceAccountRequestSchema = z
  .object({ name: z.string().min(1).max(200), scopes: GrantableScopesSchema })
  .strict()
  .openapi('CreateServiceAccountRequest');

const ServiceAccountResponseSchema = z
  .object({
    client_id: z.string(),
    client_secret: z.string().openapi({ description: 'Shown once; only its hash is stored' }),
    name: z.string(),
    scopes: z.array(z.string()),
  })
  .openapi('ServiceAccount');

const ServiceAccountSummarySchema = z
  .object({
    client_id: z.string(),
    name: z.string(),
    scopes: z.array(z.string()),
    status: z.enum(['active', 'revoked']),
    created_at: z.string().openapi({ format: 'date-time' }),
    revoked_at: z.string().nullable().openapi({ format: 'date-time' }),
  })
  .openapi('ServiceAccountSummary', {
    description: 'A service account without its secret, which is shown only when it is created',
  });

const ListServiceAccountsQuerySchema = listQuerySchema.extend({ status: z.enum(['active', 'revoked']).optional() });

const ClientIdParamsSchema = z.object({ client_id: z.string().min(1).max(200) });

const SORTABLE = { created_at: 'created_at', name: 'name', client_id: 'client_id' };

const ADMINISTERED_BY =
  'Service accounts are administered with orch:admin, the scope that configures the orchestration layer whose client credentials grant they serve. ';

function renderServiceAccount(row: ServiceAccountSummary) {
  return {
    client_id: row.client_id,
    name: row.name,
    scopes: row.scopes,
    status: row.revoked_at ? ('revoked' as const) : ('active' as const),
    created_at: row.created_at.toISOString(),
    revoked_at: row.revoked_at ? row.revoked_at.toISOString() : null,
  };
}

/** RFC 6750's insufficient_scope: granting a scope takes holding it, so the token lacks what the request needs. */
export function scopesNotHeldProblem(requested: readonly string[], notHeld: readonly string[]): Problem {
  return new Problem('insufficient_scope', `This token may not grant scopes it does not hold: ${notHeld.join(' ')}`, {
    headers: { 'WWW-Authenticate': `Bearer realm="handoff", error="insufficient_scope", scope="${notHeld.join(' ')}"` },
    extensions: { scopes_not_held: notHeld },
    errors: requested.flatMap((scope, index) =>
      notHeld.includes(scope)
        ? [
            {
              field: `scopes.${index}`,
              code: 'scope_not_held',
              message: `${scope} is not held by the caller, so it cannot grant it`,
            },
          ]
        : [],
    ),
  });
}

/** The 403 of a route that grants scopes: scopesNotHeldProblem's answer, or the admin scope missing. */
export const scopesNotHeldResponse = {
  description: 'The token lacks orch:admin, or one of the scopes asked for (insufficient_scope, with scopes_not_held)',
};

/** Service accounts for the client credentials grant: created (the secret shown once), listed and revoked by an admin. */
export function registerServiceAccountRoutes(api: ApiBuilder, deps: { db: Knex }): void {
  const serviceAccounts = routeGroup(api, { tags: ['Auth'], auth: 'orch:admin', rateLimit: 'default' });
  registerServiceAccountCreation(serviceAccounts, deps);
  registerServiceAccountReadsAndRevocation(serviceAccounts, deps);
}

function registerServiceAccountCreation(serviceAccounts: RouteGroup, deps: { db: Knex }): void {
  serviceAccounts.route({
    method: 'post',
    path: '/v1/orch/service-accounts',
    operationId: 'createServiceAccount',
    summary: 'Create a service account for the client credentials grant (admin)',
    description:
      ADMINISTERED_BY +
      'A caller grants only scopes its own token holds (directly or implied, as orch:admin implies orch:read, orch:write and orch:agent): ' +
      'asking for any other answers 403 insufficient_scope, with scopes_not_held listing them.',
    // A replay would have to store the secret, which is kept only as a hash.
    idempotency: false,
    request: { body: ServiceAccountRequestSchema },
    responses: {
      201: { description: 'The account; the secret is shown only here', schema: ServiceAccountResponseSchema },
      403: scopesNotHeldResponse,
    },
    handler: async ({ body, res, principal }) => {
      res.set('Cache-Control', 'no-store');
      const outcome = await createServiceAccount(deps.db, principal, body);
      if (!outcome.ok) throw scopesNotHeldProblem(body.scopes, outcome.scopes);
      return {
        status: 201,
        body: {
          client_id: outcome.client_id,
          client_secret: outcome.client_secret,
          name: body.name,
          scopes: body.scopes,
        },
      };
    },
  });
}

function registerServiceAccountReadsAndRevocation(serviceAccounts: RouteGroup, deps: { db: Knex }): void {
  serviceAccounts.list({
    path: '/v1/orch/service-accounts',
    operationId: 'listServiceAccounts',
    summary: 'List service accounts, active and revoked (admin)',
    description: `${ADMINISTERED_BY}Secrets are never shown again, nor their hashes.`,
    query: ListServiceAccountsQuerySchema,
    page: { description: 'A page of service accounts', item: ServiceAccountSummarySchema, name: 'ServiceAccountPage' },
    sort: { allowed: SORTABLE, fallback: 'created_at', uniqueKey: 'client_id' },
    list: ({ principal, page, query }) => listServiceAccounts(deps.db, principal.organization_id, page, query),
    view: renderServiceAccount,
  });

  serviceAccounts.route({
    method: 'delete',
    path: '/v1/orch/service-accounts/{client_id}',
    operationId: 'revokeServiceAccount',
    summary: 'Revoke a service account: its secret and every token it obtained stop working at once (admin)',
    description: `${ADMINISTERED_BY}Revoking a revoked account answers 204 again and keeps the first revocation time.`,
    request: { params: ClientIdParamsSchema },
    responses: { 204: { description: 'Revoked' }, 404: { description: 'No such service account' } },
    handler: async ({ params, principal }) => {
      const outcome = await revokeServiceAccount(deps.db, principal.organization_id, params.client_id);
      if (!outcome.ok) throw new Problem('service_account_not_found', `No service account ${params.client_id}`);
      return { status: 204 };
    },
  });
}

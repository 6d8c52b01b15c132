import type { Knex } from 'knex';
import { findApiToken, listApiTokens, type ApiTokenSummary } from '../../db/credentials';
import { createPersonalAccessToken, revokePersonalAccessToken } from '../../services/identity/issuance/access-tokens';
import { Problem } from '../problem';
import type { ApiBuilder } from '../route';
import { routeGroup, type RouteGroup } from '../route-group';
import { listQuerySchema } from '../schemas/common';
import { z } from '../schemas/zod';
import { GrantableScopesSchema, scopesNotHeldProblem, scopesNotHeldResponse } from './service-accounts';

const MAX_DAYS = 3650;

const PersonalAccessTokenRequestSchema = z
  .object({
    name: z.string().min(1).max(200),
    scopes: GrantableScopesSchema,
    expires_in_days: z
      .number()
      .int()
      .min(1)
      .max(MAX_DAYS)
      .optional()
      .openapi({ description: `Expires after this many days; never when omitted (revoke it instead)` }),
  })
  .strict()
  .openapi('CreatePersonalAccessTokenRequest');

const PersonalAccessTokenSchema = z
  .object({
    token_id: z.string(),
    name: z.string(),
    scopes: z.array(z.string()),
    status: z.enum(['active', 'expired', 'revoked']),
    created_by: z
      .string()
      .nullable()
      .openapi({ description: 'The principal that created it (pat:…, sa:…, sub:…), or the command that did' }),
    created_at: z.string().openapi({ format: 'date-time' }),
    expires_at: z.string().nullable().openapi({ format: 'date-time' }),
    revoked_at: z.string().nullable().openapi({ format: 'date-time' }),
  })
  .openapi('PersonalAccessToken', {
    description: 'A personal access token without its secret, which is shown only when it is created',
  });

const CreatedPersonalAccessTokenSchema = PersonalAccessTokenSchema.extend({
  token: z.string().openapi({ description: 'hnd_pat_…: shown once; only its hash is stored' }),
}).openapi('CreatedPersonalAccessToken');

const ListPersonalAccessTokensQuerySchema = listQuerySchema.extend({
  status: z.enum(['active', 'expired', 'revoked']).optional(),
});

const TokenIdParamsSchema = z.object({ token_id: z.string().min(1).max(200) });

const SORTABLE = { created_at: 'created_at', name: 'name', token_id: 'token_id' };

const ADMINISTERED_BY =
  'Personal access tokens are administered with orch:admin, as service accounts are, and only within the caller’s organization. ';

const iso = (date: Date | null) => (date ? date.toISOString() : null);

function renderToken(row: ApiTokenSummary, now = new Date()) {
  const status = row.revoked_at
    ? ('revoked' as const)
    : row.expires_at && row.expires_at <= now
      ? ('expired' as const)
      : ('active' as const);
  return {
    token_id: row.token_id,
    name: row.name,
    scopes: row.scopes,
    status,
    created_by: row.created_by,
    created_at: row.created_at.toISOString(),
    expires_at: iso(row.expires_at),
    revoked_at: iso(row.revoked_at),
  };
}

const NOT_IN_ORGANIZATION = 'No such token in the caller’s organization';

/** Personal access tokens: created (the secret shown once), listed, read and revoked by an admin. */
export function registerPersonalAccessTokenRoutes(api: ApiBuilder, deps: { db: Knex }): void {
  const tokens = routeGroup(api, { tags: ['Auth'], auth: 'orch:admin', rateLimit: 'default' });
  registerTokenCreation(tokens, deps);
  registerTokenReads(tokens, deps);
  registerTokenRevocation(tokens, deps);
}

function registerTokenCreation(tokens: RouteGroup, deps: { db: Knex }): void {
  tokens.route({
    method: 'post',
    path: '/v1/auth/tokens',
    operationId: 'createPersonalAccessToken',
    summary: 'Create a personal access token (admin)',
    description:
      ADMINISTERED_BY +
      'A caller grants only scopes its own token holds (directly or implied): asking for any other answers 403 insufficient_scope, with ' +
      'scopes_not_held listing them. The token (hnd_pat_…) is shown once; only its SHA-256 hash is stored.',
    // A replay would have to store the token, which is kept only as a hash.
    idempotency: false,
    request: { body: PersonalAccessTokenRequestSchema },
    responses: {
      201: { description: 'The token; its secret is shown only here', schema: CreatedPersonalAccessTokenSchema },
      403: scopesNotHeldResponse,
    },
    handler: async ({ body, res, principal }) => {
      res.set('Cache-Control', 'no-store');
      const expiresAt =
        body.expires_in_days === undefined ? null : new Date(Date.now() + body.expires_in_days * 86_400_000);
      const outcome = await createPersonalAccessToken(deps.db, principal, {
        name: body.name,
        scopes: body.scopes,
        expiresAt,
      });
      if (!outcome.ok) throw scopesNotHeldProblem(body.scopes, outcome.scopes);
      return {
        status: 201,
        body: { ...renderToken(outcome.row), token: outcome.token },
        headers: { Location: `/v1/auth/tokens/${outcome.row.token_id}` },
      };
    },
  });
}

function registerTokenReads(tokens: RouteGroup, deps: { db: Knex }): void {
  tokens.list({
    path: '/v1/auth/tokens',
    operationId: 'listPersonalAccessTokens',
    summary: 'List personal access tokens, active, expired and revoked (admin)',
    description: `${ADMINISTERED_BY}Tokens are never shown again, nor their hashes.`,
    query: ListPersonalAccessTokensQuerySchema,
    page: {
      description: 'A page of personal access tokens',
      item: PersonalAccessTokenSchema,
      name: 'PersonalAccessTokenPage',
    },
    sort: { allowed: SORTABLE, fallback: 'created_at', uniqueKey: 'token_id' },
    list: ({ query, principal, page }) => listApiTokens(deps.db, principal.organization_id, page, query),
    view: (row) => renderToken(row),
  });

  tokens.get({
    path: '/v1/auth/tokens/{token_id}',
    operationId: 'getPersonalAccessToken',
    summary: 'Read a personal access token, without its secret (admin)',
    description: ADMINISTERED_BY,
    params: TokenIdParamsSchema,
    found: { description: 'The token', schema: PersonalAccessTokenSchema },
    missing: {
      code: 'personal_access_token_not_found',
      description: NOT_IN_ORGANIZATION,
      detail: ({ params }) => `No personal access token ${params.token_id}`,
    },
    find: ({ params, principal }) => findApiToken(deps.db, principal.organization_id, params.token_id),
    view: renderToken,
  });
}

function registerTokenRevocation(tokens: RouteGroup, deps: { db: Knex }): void {
  tokens.route({
    method: 'delete',
    path: '/v1/auth/tokens/{token_id}',
    operationId: 'revokePersonalAccessToken',
    summary: 'Revoke a personal access token: it stops authenticating at once (admin)',
    description: `${ADMINISTERED_BY}Every request reads the token's row, so the next one with it is 401. Revoking a revoked token answers 204 again and keeps the first revocation time.`,
    request: { params: TokenIdParamsSchema },
    responses: { 204: { description: 'Revoked' }, 404: { description: NOT_IN_ORGANIZATION } },
    handler: async ({ params, principal }) => {
      const outcome = await revokePersonalAccessToken(deps.db, principal.organization_id, params.token_id);
      if (!outcome.ok)
        throw new Problem('personal_access_token_not_found', `No personal access token ${params.token_id}`);
      return { status: 204 };
    },
  });
}

import type { Knex } from 'knex';
import type { KeyRing } from '../../services/identity/issuance/key-ring';
import { authenticateClient } from '../../services/identity/authentication/bearer';
import { issueAccessToken } from '../../services/identity/issuance/access-tokens';
import { isGrantableScope } from '../../services/identity/scopes';
import type { TokenSettings } from '../../services/identity/authentication/actor';
import { isStorableText } from '../../domain/common/storable-text';
import { Problem, type ProblemCode } from '../problem';
import type { ApiBuilder } from '../route';
import { z } from '../schemas/zod';

const TokenRequestSchema = z
  .object({
    grant_type: z.string().min(1),
    client_id: z.string().min(1).optional(),
    client_secret: z.string().min(1).optional(),
    scope: z
      .string()
      .optional()
      .openapi({ description: 'Space-separated subset of the account’s scopes; all of them when omitted' }),
  })
  .openapi('TokenRequest');

const TokenResponseSchema = z
  .object({
    access_token: z.string(),
    token_type: z.literal('Bearer'),
    expires_in: z.number().int(),
    scope: z.string(),
  })
  .openapi('TokenResponse');

/** OAuth errors carry RFC 6749's `error` member beside the problem fields, so OAuth clients read them too. */
function oauthProblem(
  code: ProblemCode,
  error: string,
  description: string,
  headers?: Record<string, string>,
): Problem {
  return new Problem(code, description, {
    extensions: { error, error_description: description },
    ...(headers ? { headers } : {}),
  });
}

function basicCredentials(header: string | undefined): { id: string; secret: string } | undefined {
  const match = header && /^Basic\s+(\S+)$/i.exec(header);
  if (!match?.[1]) return undefined;
  const decoded = Buffer.from(match[1], 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) return undefined;
  let credentials: { id: string; secret: string };
  try {
    credentials = {
      id: decodeURIComponent(decoded.slice(0, colon)),
      secret: decodeURIComponent(decoded.slice(colon + 1)),
    };
  } catch {
    // Not valid form-encoding (RFC 6749 2.3.1): the client's mistake, so invalid_client rather than a 500.
    return { id: '', secret: '' };
  }
  // Decoded here, out of reach of the guard of every route's headers.
  if (!isStorableText(credentials.id) || !isStorableText(credentials.secret)) {
    const message = 'the client id and secret must not contain U+0000 or an unpaired UTF-16 surrogate';
    throw new Problem('validation_failed', `HTTP Basic credentials: ${message}`, {
      errors: [{ field: 'header.authorization', code: 'invalid_format', message }],
      extensions: { error: 'invalid_request', error_description: message },
    });
  }
  return credentials;
}

interface TokenRouteDeps {
  db: Knex;
  keyRing: KeyRing;
  settings: TokenSettings;
  accessTokenTtlSeconds: number;
}

/** The client credentials grant: the client authenticated by HTTP Basic or the body, the scopes it asks for checked. */
async function clientCredentialsGrant(
  deps: TokenRouteDeps,
  authorization: string | undefined,
  body: z.infer<typeof TokenRequestSchema>,
): Promise<z.infer<typeof TokenResponseSchema>> {
  if (body.grant_type !== 'client_credentials') {
    throw oauthProblem(
      'unsupported_grant_type',
      'unsupported_grant_type',
      'Only the client_credentials grant is supported',
    );
  }
  const basic = basicCredentials(authorization);
  const clientId = basic?.id ?? body.client_id;
  const clientSecret = basic?.secret ?? body.client_secret;
  const account = clientId && clientSecret ? await authenticateClient(deps.db, clientId, clientSecret) : undefined;
  if (!account)
    throw oauthProblem('invalid_client', 'invalid_client', 'Unknown client or wrong secret', {
      'WWW-Authenticate': 'Basic realm="handoff"',
    });

  const requested = body.scope ? body.scope.split(' ').filter(Boolean) : account.scopes;
  const refused = requested.filter((scope) => !isGrantableScope(scope) || !account.scopes.includes(scope));
  if (refused.length > 0)
    throw oauthProblem('invalid_scope', 'invalid_scope', `Not granted to this client: ${refused.join(' ')}`);
  const access_token = await issueAccessToken(deps.keyRing, deps.settings, {
    subject: account.client_id,
    clientId: account.client_id,
    organizationId: account.organization_id,
    scopes: requested,
    ttlSeconds: deps.accessTokenTtlSeconds,
  });
  return { access_token, token_type: 'Bearer', expires_in: deps.accessTokenTtlSeconds, scope: requested.join(' ') };
}

/** The OAuth token endpoint and the keys that verify what it issues; both public. */
export function registerTokenRoutes(api: ApiBuilder, deps: TokenRouteDeps): void {
  api.route({
    method: 'post',
    path: '/oauth/token',
    operationId: 'issueToken',
    summary: 'OAuth 2.0 token endpoint (client credentials grant)',
    description:
      'Authenticate with HTTP Basic (client_id:client_secret) or client_id and client_secret in the body, ' +
      'as application/x-www-form-urlencoded or JSON. Returns an Ed25519-signed JWT access token (RFC 9068).',
    tags: ['Auth'],
    auth: 'public',
    rateLimit: 'default',
    request: { body: TokenRequestSchema, bodyTypes: ['application/x-www-form-urlencoded', 'application/json'] },
    responses: {
      200: { description: 'An access token', schema: TokenResponseSchema },
      401: { description: 'invalid_client' },
    },
    handler: async ({ req, res, body }) => {
      res.set('Cache-Control', 'no-store');
      return { status: 200, body: await clientCredentialsGrant(deps, req.get('authorization'), body) };
    },
  });

  api.route({
    method: 'get',
    path: '/.well-known/jwks.json',
    operationId: 'getJwks',
    summary: 'The public keys that verify this deployment’s tokens',
    tags: ['Auth'],
    auth: 'public',
    rateLimit: null,
    responses: {
      200: {
        description: 'A JSON Web Key Set',
        schema: z.object({ keys: z.array(z.record(z.string(), z.unknown())) }).openapi('Jwks'),
      },
    },
    handler: async ({ res }) => {
      res.set('Cache-Control', 'public, max-age=300');
      return { status: 200, body: await deps.keyRing.jwks() };
    },
  });
}

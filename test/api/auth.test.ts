import { createHash } from 'node:crypto';
import { calculateJwkThumbprint, createLocalJWKSet, decodeProtectedHeader, jwtVerify, SignJWT, type JWK } from 'jose';
import { createKeyRing, rotateSigningKey } from '../../services/identity/issuance/key-ring';
import { mintPersonalAccessToken } from '../../services/identity/issuance/access-tokens';
import type { Scope } from '../../services/identity/scopes';
import { registerTokenSubject } from '../../services/identity/issuance/subjects';
import { startExtraApp, type ExtraApp } from '../support/app';
import { eventually } from '../support/eventually';
import { call, expectProblem, type CallOptions } from '../support/http';
import { deploymentSigning, foreignEd25519Key, nowSeconds, signJwt } from '../support/jwt';
import { useStack } from '../support/stack';
import { DEFAULT_ORGANIZATION_ID } from '../../domain/common/organizations';

let account: { client_id: string; client_secret: string };

const stack = useStack();
beforeAll(async () => {
  const created = await call(stack.baseUrl, 'POST', '/v1/orch/service-accounts', {
    token: await stack.token(['orch:admin']),
    json: { name: 'billing-bot', scopes: ['orch:read', 'orch:write'] },
  });
  expect(created.status).toBe(201);
  account = created.body;
  // The subject of the JWTs built claim by claim below (test/support/jwt.ts), registered as a deployment's operator registers one.
  await registerTokenSubject(stack.database.db, {
    subject: 'forger',
    organizationId: DEFAULT_ORGANIZATION_ID,
    scopes: ['orch:read'],
  });
});

const READ = '/v1/orch/reviewers';
const get = (token: string, baseUrl = stack.baseUrl) => call(baseUrl, 'GET', READ, { token });
const route = (token: string) =>
  call(stack.baseUrl, 'POST', '/v1/orch/routing', { token, json: { ai_confidence: 0.95 } });
const sha256Hex = (text: string) => createHash('sha256').update(text).digest('hex');

function requestToken(options: CallOptions) {
  return call(stack.baseUrl, 'POST', '/oauth/token', options);
}
const form = (fields: Record<string, string>): CallOptions => ({
  raw: new URLSearchParams(fields).toString(),
  headers: { 'content-type': 'application/x-www-form-urlencoded' },
});
const basic = (id: string, secret: string) => `Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}`;

describe('bearer tokens', () => {
  it('answers 401 with WWW-Authenticate when no token is sent', async () => {
    const reply = await call(stack.baseUrl, 'GET', READ);
    expectProblem(reply, 401, 'unauthorized');
    expect(reply.headers.get('www-authenticate')).toBe('Bearer realm="handoff"');
  });

  it.each([
    ['a token that is not a JWT', { authorization: 'Bearer not-a-jwt' }, 'The token is malformed'],
    ['a scheme other than Bearer', { authorization: 'Token abc' }, 'The Authorization header must be "Bearer <token>"'],
    [
      'an unknown personal access token',
      { authorization: 'Bearer hnd_pat_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA' },
      'The token is not recognized',
    ],
  ])('answers 401 invalid_token for %s', async (_name, headers, detail) => {
    const reply = await call(stack.baseUrl, 'GET', READ, { headers });
    expectProblem(reply, 401, 'unauthorized');
    expect(reply.body.detail).toBe(detail);
    expect(reply.headers.get('www-authenticate')).toBe('Bearer realm="handoff", error="invalid_token"');
  });

  it('accepts a JWT signed by the deployment key with the right typ, issuer, audience and expiry', async () => {
    const own = await deploymentSigning(stack);
    expect((await get(await signJwt({ ...own }))).status).toBe(200);
  });

  it('answers 401 for an expired JWT signed by the deployment key', async () => {
    const own = await deploymentSigning(stack);
    const reply = await get(await signJwt({ ...own, expiresAt: nowSeconds() - 60 }));
    expectProblem(reply, 401, 'unauthorized');
    expect(reply.body.detail).toBe('The token has expired');
  });

  it('refuses a token it verified before once the token expires (the verified-token cache keeps exp)', async () => {
    const own = await deploymentSigning(stack);
    const token = await signJwt({ ...own, scope: 'orch:read', expiresAt: nowSeconds() + 2 });
    expect((await get(token)).status).toBe(200);
    const later = await eventually(
      () => get(token),
      (reply) => reply.status !== 200,
      { everyMs: 250 },
    );
    expectProblem(later, 401, 'unauthorized');
    expect(later.body.detail).toBe('The token has expired');
  });

  it('answers 401 for a JWT signed by a foreign Ed25519 key with a kid that is not ours', async () => {
    const own = await deploymentSigning(stack);
    const reply = await get(await signJwt({ ...own, key: await foreignEd25519Key(), kid: 'attacker-key-1' }));
    expectProblem(reply, 401, 'unauthorized');
    expect(reply.body.detail).toBe('The token was not signed by a key of this deployment');
  });

  it('answers 401 for a JWT signed by a foreign key that claims our kid', async () => {
    const own = await deploymentSigning(stack);
    const reply = await get(await signJwt({ ...own, key: await foreignEd25519Key() }));
    expectProblem(reply, 401, 'unauthorized');
    expect(reply.body.detail).toBe('The token is not valid (ERR_JWS_SIGNATURE_VERIFICATION_FAILED)');
  });

  it.each([
    ['a wrong audience', { audience: 'someone-else' }],
    ['a wrong issuer', { issuer: 'https://idp.evil.example' }],
    ['no expiry', { expiresAt: null }],
    ['typ JWT instead of at+jwt', { typ: 'JWT' }],
  ])('answers 401 for a JWT with %s', async (_name, change) => {
    const own = await deploymentSigning(stack);
    const reply = await get(await signJwt({ ...own, ...change }));
    expectProblem(reply, 401, 'unauthorized');
    expect(reply.body.detail).toMatch(/^The token is not valid/);
  });

  it('answers 401 for an HS256 JWT that names our kid (algorithms are pinned)', async () => {
    const own = await deploymentSigning(stack);
    const jwks = await call(stack.baseUrl, 'GET', '/.well-known/jwks.json');
    const publicX = Buffer.from((jwks.body.keys[0] as JWK).x!, 'base64url');
    const reply = await get(await signJwt({ ...own, alg: 'HS256', key: publicX }));
    expectProblem(reply, 401, 'unauthorized');
  });
});

describe('scopes', () => {
  it('answers 403 insufficient_scope with required_scope for an orch:read token on POST /v1/orch/routing', async () => {
    const reply = await route(await stack.token(['orch:read']));
    expectProblem(reply, 403, 'insufficient_scope');
    expect(reply.body.required_scope).toBe('orch:write');
    expect(reply.headers.get('www-authenticate')).toBe(
      'Bearer realm="handoff", error="insufficient_scope", scope="orch:write"',
    );
  });

  it('lets orch:admin read and write', async () => {
    const admin = await stack.token(['orch:admin']);
    expect((await get(admin)).status).toBe(200);
    expect((await route(admin)).status).toBe(200);
  });

  it('does not let orch:write administer, nor audit:read read routings', async () => {
    const write = await call(stack.baseUrl, 'PUT', '/v1/orch/reviewers/did:web:example.com:r1', {
      token: await stack.token(['orch:write']),
      json: { display_name: 'R1' },
    });
    expectProblem(write, 403, 'insufficient_scope');
    expect(write.body.required_scope).toBe('orch:admin');

    const audit = await get(await stack.token(['audit:read']));
    expectProblem(audit, 403, 'insufficient_scope');
    expect(audit.body.required_scope).toBe('orch:read');
  });
});

describe('GET /.well-known/jwks.json', () => {
  it('publishes the public signing key: kid is its JWK thumbprint, alg EdDSA, no private member', async () => {
    const reply = await call(stack.baseUrl, 'GET', '/.well-known/jwks.json');
    expect(reply.status).toBe(200);
    expect(reply.body.keys).toHaveLength(1);
    const [key] = reply.body.keys as JWK[];
    expect(key).toMatchObject({ kty: 'OKP', crv: 'Ed25519', alg: 'EdDSA', use: 'sig' });
    expect(key).not.toHaveProperty('d');
    expect(key!.kid).toBe(await calculateJwkThumbprint({ kty: key!.kty, crv: key!.crv!, x: key!.x! }));
  });

  it('lets a third party verify an issued token offline with the published keys', async () => {
    const token = await stack.token(['orch:read'], 'offline-check');
    const jwks = await call(stack.baseUrl, 'GET', '/.well-known/jwks.json');
    const { payload, protectedHeader } = await jwtVerify(token, createLocalJWKSet(jwks.body), {
      audience: stack.config.AUTH_AUDIENCE,
    });
    expect(protectedHeader).toMatchObject({ alg: 'EdDSA', typ: 'at+jwt', kid: jwks.body.keys[0].kid });
    expect(payload).toMatchObject({ sub: 'offline-check', scope: 'orch:read' });
  });
});

describe('personal access tokens', () => {
  it('authenticate with exactly their scopes', async () => {
    const { token } = await mintPersonalAccessToken(stack.database.db, {
      name: 'ci',
      scopes: ['orch:read'],
      organizationId: DEFAULT_ORGANIZATION_ID,
    });
    expect(token).toMatch(/^hnd_pat_/);
    expect((await get(token)).status).toBe(200);
    const write = await route(token);
    expectProblem(write, 403, 'insufficient_scope');
  });

  it('are stored only as their SHA-256', async () => {
    const { token, token_id } = await mintPersonalAccessToken(stack.database.db, {
      name: 'stored',
      scopes: ['orch:read'],
      organizationId: DEFAULT_ORGANIZATION_ID,
    });
    const rows = await stack.database.db('api_tokens').select('*');
    const secretPart = token.slice('hnd_pat_'.length);
    expect(JSON.stringify(rows)).not.toContain(secretPart);
    expect(rows.find((row: { token_id: string }) => row.token_id === token_id)).toMatchObject({
      token_hash: sha256Hex(token),
    });
  });

  it('are refused once revoked or expired', async () => {
    const revoked = await mintPersonalAccessToken(stack.database.db, {
      name: 'revoked',
      scopes: ['orch:read'],
      organizationId: DEFAULT_ORGANIZATION_ID,
    });
    expect((await get(revoked.token)).status).toBe(200);
    await stack.database.db('api_tokens').where({ token_id: revoked.token_id }).update({ revoked_at: new Date() });
    const afterRevoke = await get(revoked.token);
    expectProblem(afterRevoke, 401, 'unauthorized');
    expect(afterRevoke.body.detail).toBe('The token has been revoked');

    const expired = await mintPersonalAccessToken(stack.database.db, {
      name: 'expired',
      scopes: ['orch:read'],
      organizationId: DEFAULT_ORGANIZATION_ID,
      expiresAt: new Date(Date.now() - 1000),
    });
    const afterExpiry = await get(expired.token);
    expectProblem(afterExpiry, 401, 'unauthorized');
    expect(afterExpiry.body.detail).toBe('The token has expired');
  });
});

describe('service accounts and POST /oauth/token', () => {
  it('creates a service account only for orch:admin, shows its secret once and stores its hash', async () => {
    const refused = await call(stack.baseUrl, 'POST', '/v1/orch/service-accounts', {
      token: await stack.token(['orch:write']),
      json: { name: 'x', scopes: ['orch:read'] },
    });
    expectProblem(refused, 403, 'insufficient_scope');

    expect(account).toMatchObject({
      client_id: expect.stringMatching(/^sa_/),
      client_secret: expect.stringMatching(/^hnd_sk_/),
      name: 'billing-bot',
      scopes: ['orch:read', 'orch:write'],
    });
    const rows = await stack.database.db('service_accounts').select('*');
    expect(JSON.stringify(rows)).not.toContain(account.client_secret.slice('hnd_sk_'.length));
    expect(rows.find((row: { client_id: string }) => row.client_id === account.client_id)).toMatchObject({
      secret_hash: sha256Hex(account.client_secret),
    });
  });

  it.each([
    [
      'HTTP Basic',
      () => ({
        ...form({ grant_type: 'client_credentials' }),
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          authorization: basic(account.client_id, account.client_secret),
        },
      }),
    ],
    [
      'a form-encoded body',
      () =>
        form({ grant_type: 'client_credentials', client_id: account.client_id, client_secret: account.client_secret }),
    ],
    [
      'a JSON body',
      () => ({
        json: { grant_type: 'client_credentials', client_id: account.client_id, client_secret: account.client_secret },
      }),
    ],
  ])('issues an access token for client credentials in %s', async (_name, options) => {
    const reply = await requestToken(options());
    expect(reply.status).toBe(200);
    expect(reply.headers.get('cache-control')).toBe('no-store');
    expect(reply.body).toEqual({
      access_token: expect.any(String),
      token_type: 'Bearer',
      expires_in: 3600,
      scope: 'orch:read orch:write',
    });
    expect(decodeProtectedHeader(reply.body.access_token)).toMatchObject({ alg: 'EdDSA', typ: 'at+jwt' });
    expect((await get(reply.body.access_token)).status).toBe(200);
  });

  it('issues tokens that carry exactly the granted scopes', async () => {
    const full = await requestToken({
      json: { grant_type: 'client_credentials', client_id: account.client_id, client_secret: account.client_secret },
    });
    expect((await route(full.body.access_token)).status).toBe(200);
    const admin = await call(stack.baseUrl, 'PUT', '/v1/orch/reviewers/did:web:example.com:r2', {
      token: full.body.access_token,
      json: { display_name: 'R2' },
    });
    expectProblem(admin, 403, 'insufficient_scope');

    const narrowed = await requestToken({
      json: {
        grant_type: 'client_credentials',
        client_id: account.client_id,
        client_secret: account.client_secret,
        scope: 'orch:read',
      },
    });
    expect(narrowed.body.scope).toBe('orch:read');
    expect((await get(narrowed.body.access_token)).status).toBe(200);
    const write = await route(narrowed.body.access_token);
    expectProblem(write, 403, 'insufficient_scope');
  });

  it.each([
    ['a wrong secret', () => basic(account.client_id, 'hnd_sk_wrong')],
    ['an unknown client', () => basic('sa_nobody', account.client_secret)],
    ['Basic credentials that are not valid URL encoding', () => basic('%E0%A4%A', account.client_secret)],
  ])('answers 401 invalid_client with an OAuth error member for %s', async (_name, authorization) => {
    const reply = await requestToken({
      ...form({ grant_type: 'client_credentials' }),
      headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: authorization() },
    });
    expectProblem(reply, 401, 'invalid_client');
    expect(reply.body).toMatchObject({ error: 'invalid_client', error_description: expect.any(String) });
    expect(reply.headers.get('www-authenticate')).toBe('Basic realm="handoff"');
    expect(reply.headers.get('cache-control')).toBe('no-store');
  });

  it('answers 400 unsupported_grant_type for a grant other than client_credentials', async () => {
    const reply = await requestToken(
      form({
        grant_type: 'password',
        username: 'a',
        password: 'b',
        client_id: account.client_id,
        client_secret: account.client_secret,
      }),
    );
    expectProblem(reply, 400, 'unsupported_grant_type');
    expect(reply.body.error).toBe('unsupported_grant_type');
  });

  it.each([['orch:admin'], ['orch:read launch:missiles']])(
    'answers 400 invalid_scope for scope "%s", which the client was not granted',
    async (scope) => {
      const reply = await requestToken(
        form({
          grant_type: 'client_credentials',
          client_id: account.client_id,
          client_secret: account.client_secret,
          scope,
        }),
      );
      expectProblem(reply, 400, 'invalid_scope');
      expect(reply.body.error).toBe('invalid_scope');
    },
  );
});

describe('service accounts grant only what their creator holds', () => {
  const create = async (creatorScopes: Scope[], scopes: string[], name = 'granted') =>
    call(stack.baseUrl, 'POST', '/v1/orch/service-accounts', {
      token: await stack.token(creatorScopes),
      json: { name, scopes },
    });

  it('answers 403 insufficient_scope naming every scope the creator does not hold, and creates nothing', async () => {
    const before = await stack.database.db('service_accounts').count<{ count: string }[]>({ count: '*' });
    const reply = await create(['orch:admin'], ['orch:read', 'audit:read', 'platform:admin'], 'escalator');
    expectProblem(reply, 403, 'insufficient_scope');
    expect(reply.body.scopes_not_held).toEqual(['audit:read', 'platform:admin']);
    expect(reply.body.detail).toContain('audit:read platform:admin');
    expect(reply.body.errors).toEqual([
      { field: 'scopes.1', code: 'scope_not_held', message: expect.stringContaining('audit:read') },
      { field: 'scopes.2', code: 'scope_not_held', message: expect.stringContaining('platform:admin') },
    ]);
    expect(reply.headers.get('www-authenticate')).toBe(
      'Bearer realm="handoff", error="insufficient_scope", scope="audit:read platform:admin"',
    );
    const after = await stack.database.db('service_accounts').count<{ count: string }[]>({ count: '*' });
    expect(after).toEqual(before);
  });

  it('lets a creator grant what its scopes imply, and what it holds beside orch:admin', async () => {
    expect((await create(['orch:admin'], ['orch:read', 'orch:write', 'orch:agent'])).status).toBe(201);
    expect((await create(['orch:admin', 'audit:read'], ['audit:read'])).status).toBe(201);
    expect((await create(['orch:admin', 'platform:admin'], ['platform:write'])).status).toBe(201);
  });

  it('holds a service account to the scopes of its own token when it creates another', async () => {
    const parent = (await create(['orch:admin', 'audit:read'], ['orch:admin', 'audit:read'], 'parent')).body;
    const narrowed = await requestToken({
      json: {
        grant_type: 'client_credentials',
        client_id: parent.client_id,
        client_secret: parent.client_secret,
        scope: 'orch:admin',
      },
    });
    const child = (scopes: string[]) =>
      call(stack.baseUrl, 'POST', '/v1/orch/service-accounts', {
        token: narrowed.body.access_token,
        json: { name: 'child', scopes },
      });
    expect((await child(['orch:read'])).status).toBe(201);
    const refused = await child(['audit:read']);
    expectProblem(refused, 403, 'insufficient_scope');
    expect(refused.body.scopes_not_held).toEqual(['audit:read']);
  });
});

describe('GET /v1/orch/service-accounts', () => {
  const list = async (query = '', scopes: Scope[] = ['orch:admin']) =>
    call(stack.baseUrl, 'GET', `/v1/orch/service-accounts${query}`, { token: await stack.token(scopes) });

  it('pages through every account with a cursor, and never shows a secret or its hash', async () => {
    const seen: Array<Record<string, unknown>> = [];
    let cursor: string | null = null;
    let total: number | undefined;
    do {
      const reply: Awaited<ReturnType<typeof list>> = await list(
        `?limit=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
      );
      expect(reply.status).toBe(200);
      expect(reply.body.data.length).toBeLessThanOrEqual(2);
      expect(reply.body.has_more).toBe(reply.body.next_cursor !== null);
      total ??= reply.body.total_count;
      expect(reply.body.total_count).toBe(total);
      seen.push(...reply.body.data);
      cursor = reply.body.next_cursor;
    } while (cursor);

    const ids = seen.map((item) => item.client_id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids).toHaveLength(total!);
    expect(seen.find((item) => item.client_id === account.client_id)).toEqual({
      client_id: account.client_id,
      name: 'billing-bot',
      scopes: ['orch:read', 'orch:write'],
      status: 'active',
      created_at: expect.stringMatching(/Z$/),
      revoked_at: null,
    });
    const stored = await stack.database.db('service_accounts').select('secret_hash');
    const text = JSON.stringify(seen);
    expect(text).not.toContain('hnd_sk_');
    for (const { secret_hash } of stored) expect(text).not.toContain(secret_hash);
    for (const item of seen)
      expect(Object.keys(item).sort()).toEqual(['client_id', 'created_at', 'name', 'revoked_at', 'scopes', 'status']);
  });

  it('sorts by name and answers 400 for a cursor it did not issue', async () => {
    const names = (await list('?sort=-name&limit=100')).body.data.map((item: { name: string }) => item.name);
    expect(names).toEqual([...names].sort().reverse());
    expectProblem(await list('?cursor=not-ours'), 400, 'invalid_cursor');
  });

  it('needs orch:admin', async () => {
    const reply = await list('', ['orch:write', 'audit:read', 'platform:admin']);
    expectProblem(reply, 403, 'insufficient_scope');
    expect(reply.body.required_scope).toBe('orch:admin');
  });
});

describe('DELETE /v1/orch/service-accounts/{client_id}', () => {
  const revoke = async (clientId: string) =>
    call(stack.baseUrl, 'DELETE', `/v1/orch/service-accounts/${clientId}`, {
      token: await stack.token(['orch:admin']),
    });
  const clientCredentials = (victim: { client_id: string; client_secret: string }) =>
    requestToken({
      json: { grant_type: 'client_credentials', client_id: victim.client_id, client_secret: victim.client_secret },
    });

  it('stops the account’s secret and every token it obtained at once, and shows it revoked', async () => {
    const victim = (
      await call(stack.baseUrl, 'POST', '/v1/orch/service-accounts', {
        token: await stack.token(['orch:admin']),
        json: { name: 'to-revoke', scopes: ['orch:read'] },
      })
    ).body;
    const issued = (await clientCredentials(victim)).body.access_token as string;
    expect((await get(issued)).status).toBe(200);

    const reply = await revoke(victim.client_id);
    expect(reply.status).toBe(204);
    expect(reply.text).toBe('');

    const afterRevoke = await get(issued);
    expectProblem(afterRevoke, 401, 'unauthorized');
    expect(afterRevoke.body.detail).toBe('The service account has been revoked');
    expectProblem(await clientCredentials(victim), 401, 'invalid_client');

    const listed = await call(stack.baseUrl, 'GET', '/v1/orch/service-accounts?status=revoked&limit=100', {
      token: await stack.token(['orch:admin']),
    });
    expect(listed.body.data).toContainEqual(
      expect.objectContaining({
        client_id: victim.client_id,
        status: 'revoked',
        revoked_at: expect.stringMatching(/Z$/),
      }),
    );
    const active = await call(stack.baseUrl, 'GET', '/v1/orch/service-accounts?status=active&limit=100', {
      token: await stack.token(['orch:admin']),
    });
    expect(active.body.data.map((item: { client_id: string }) => item.client_id)).not.toContain(victim.client_id);
  });

  it('is idempotent: a second revocation answers 204 and keeps the first revocation time', async () => {
    const victim = (
      await call(stack.baseUrl, 'POST', '/v1/orch/service-accounts', {
        token: await stack.token(['orch:admin']),
        json: { name: 'twice', scopes: ['orch:read'] },
      })
    ).body;
    expect((await revoke(victim.client_id)).status).toBe(204);
    const [first] = await stack.database
      .db('service_accounts')
      .where({ client_id: victim.client_id })
      .select('revoked_at');
    expect((await revoke(victim.client_id)).status).toBe(204);
    const [second] = await stack.database
      .db('service_accounts')
      .where({ client_id: victim.client_id })
      .select('revoked_at');
    expect(second.revoked_at).toEqual(first.revoked_at);
  });

  it('answers 404 service_account_not_found for an unknown id, and 403 without orch:admin', async () => {
    expectProblem(await revoke('sa_nobody'), 404, 'service_account_not_found');
    const refused = await call(stack.baseUrl, 'DELETE', `/v1/orch/service-accounts/${account.client_id}`, {
      token: await stack.token(['orch:write']),
    });
    expectProblem(refused, 403, 'insufficient_scope');
  });

  it('refuses a token that names a service account this deployment does not have', async () => {
    const own = await deploymentSigning(stack);
    const orphan = await new SignJWT({ scope: 'orch:read', client_id: 'sa_never_created' })
      .setProtectedHeader({ alg: 'EdDSA', typ: 'at+jwt', kid: own.kid })
      .setIssuer(own.issuer)
      .setAudience(own.audience)
      .setSubject('sa_never_created')
      .setExpirationTime('5m')
      .sign(own.key);
    expectProblem(await get(orphan), 401, 'unauthorized');
  });
});

describe('service accounts in the OpenAPI document', () => {
  it.each([
    ['post', '/v1/orch/service-accounts', 'createServiceAccount'],
    ['get', '/v1/orch/service-accounts', 'listServiceAccounts'],
    ['delete', '/v1/orch/service-accounts/{client_id}', 'revokeServiceAccount'],
  ])('documents %s %s as %s, administered with orch:admin', async (method, path, operationId) => {
    const doc = (await call(stack.baseUrl, 'GET', '/openapi.json')).body;
    const operation = doc.paths[path]?.[method];
    expect(operation).toMatchObject({ operationId, security: [{ bearerAuth: ['orch:admin'] }] });
    expect(operation.description).toContain('administered with orch:admin');
  });
});

// Last in the file: it rotates the deployment key under every other test's tokens.
describe('signing key rotation', () => {
  let other: ExtraApp;
  beforeAll(async () => {
    other = await startExtraApp(stack);
  });
  afterAll(() => other?.close());

  const kidsOf = async (baseUrl: string) =>
    ((await call(baseUrl, 'GET', '/.well-known/jwks.json')).body.keys as JWK[]).map((key) => key.kid).sort();
  const clientToken = async () =>
    (
      await requestToken({
        json: { grant_type: 'client_credentials', client_id: account.client_id, client_secret: account.client_secret },
      })
    ).body.access_token as string;

  it('keeps old tokens valid while their key is published, signs new ones with the new key on every instance, and lists both', async () => {
    const oldToken = await clientToken();
    const oldKid = decodeProtectedHeader(oldToken).kid!;
    // Both instances have verified with (and cached) the old key set.
    expect((await get(oldToken)).status).toBe(200);
    expect((await get(oldToken, other.baseUrl)).status).toBe(200);

    const newKid = await rotateSigningKey(stack.database.db, {
      maxTokenTtlSeconds: stack.config.AUTH_ACCESS_TOKEN_TTL_SECONDS,
    });
    expect(newKid).not.toBe(oldKid);

    const newToken = await clientToken();
    expect(decodeProtectedHeader(newToken).kid).toBe(newKid);
    expect((await get(newToken)).status).toBe(200);
    expect((await get(newToken, other.baseUrl)).status).toBe(200);
    expect((await get(oldToken)).status).toBe(200);
    expect((await get(oldToken, other.baseUrl)).status).toBe(200);

    for (const baseUrl of [stack.baseUrl, other.baseUrl])
      expect(await kidsOf(baseUrl)).toEqual([oldKid, newKid].sort());
    expect(decodeProtectedHeader(await stack.token()).kid).toBe(newKid);
  });

  it('stops publishing the old key once every token it signed has expired', async () => {
    const [oldKey] = await stack.database.db('signing_keys').whereNotNull('retired_at').select('kid');
    await stack.database
      .db('signing_keys')
      .where({ kid: oldKey.kid })
      .update({ publish_until: new Date(Date.now() - 1000) });
    const { kid: activeKid } = await createKeyRing(stack.database.db).signingKey();
    expect(await kidsOf(stack.baseUrl)).toEqual([activeKid]);
  });
});

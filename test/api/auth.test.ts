import { createHash } from 'node:crypto';
import { calculateJwkThumbprint, createLocalJWKSet, decodeProtectedHeader, jwtVerify, type JWK } from 'jose';
import { createKeyRing, rotateSigningKey } from '../../services/auth/key-ring';
import { mintPersonalAccessToken } from '../../services/auth/tokens';
import { startExtraApp, type ExtraApp } from '../support/app';
import { call, expectProblem, type CallOptions } from '../support/http';
import { deploymentSigning, foreignEd25519Key, nowSeconds, signJwt } from '../support/jwt';
import { startStack, type Stack } from '../support/stack';

let stack: Stack;
let account: { client_id: string; client_secret: string };

beforeAll(async () => {
  stack = await startStack();
  const created = await call(stack.baseUrl, 'POST', '/v1/orch/service-accounts', {
    token: await stack.token(['orch:admin']),
    json: { name: 'billing-bot', scopes: ['orch:read', 'orch:write'] },
  });
  expect(created.status).toBe(201);
  account = created.body;
});
afterAll(() => stack?.stop());

const READ = '/v1/orch/reviewers';
const get = (token: string, baseUrl = stack.baseUrl) => call(baseUrl, 'GET', READ, { token });
const route = (token: string) => call(stack.baseUrl, 'POST', '/v1/orch/routing', { token, json: { ai_confidence: 0.95 } });
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
    ['an unknown personal access token', { authorization: 'Bearer hnd_pat_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA' }, 'The token is not recognized'],
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
    expect(reply.headers.get('www-authenticate')).toBe('Bearer realm="handoff", error="insufficient_scope", scope="orch:write"');
  });

  it('lets orch:admin read and write', async () => {
    const admin = await stack.token(['orch:admin']);
    expect((await get(admin)).status).toBe(200);
    expect((await route(admin)).status).toBe(200);
  });

  it('does not let orch:write administer, nor audit:read read routings', async () => {
    const write = await call(stack.baseUrl, 'PUT', '/v1/orch/reviewers/did:web:example.com:r1', { token: await stack.token(['orch:write']), json: { display_name: 'R1' } });
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
    expect(key!.kid).toBe(await calculateJwkThumbprint({ kty: key!.kty!, crv: key!.crv!, x: key!.x! }));
  });

  it('lets a third party verify an issued token offline with the published keys', async () => {
    const token = await stack.token(['orch:read'], 'offline-check');
    const jwks = await call(stack.baseUrl, 'GET', '/.well-known/jwks.json');
    const { payload, protectedHeader } = await jwtVerify(token, createLocalJWKSet(jwks.body), { audience: stack.config.AUTH_AUDIENCE });
    expect(protectedHeader).toMatchObject({ alg: 'EdDSA', typ: 'at+jwt', kid: jwks.body.keys[0].kid });
    expect(payload).toMatchObject({ sub: 'offline-check', scope: 'orch:read' });
  });
});

describe('personal access tokens', () => {
  it('authenticate with exactly their scopes', async () => {
    const { token } = await mintPersonalAccessToken(stack.database.db, { name: 'ci', scopes: ['orch:read'] });
    expect(token).toMatch(/^hnd_pat_/);
    expect((await get(token)).status).toBe(200);
    const write = await route(token);
    expectProblem(write, 403, 'insufficient_scope');
  });

  it('are stored only as their SHA-256', async () => {
    const { token, token_id } = await mintPersonalAccessToken(stack.database.db, { name: 'stored', scopes: ['orch:read'] });
    const rows = await stack.database.db('api_tokens').select('*');
    const secretPart = token.slice('hnd_pat_'.length);
    expect(JSON.stringify(rows)).not.toContain(secretPart);
    expect(rows.find((row: { token_id: string }) => row.token_id === token_id)).toMatchObject({ token_hash: sha256Hex(token) });
  });

  it('are refused once revoked or expired', async () => {
    const revoked = await mintPersonalAccessToken(stack.database.db, { name: 'revoked', scopes: ['orch:read'] });
    expect((await get(revoked.token)).status).toBe(200);
    await stack.database.db('api_tokens').where({ token_id: revoked.token_id }).update({ revoked_at: new Date() });
    const afterRevoke = await get(revoked.token);
    expectProblem(afterRevoke, 401, 'unauthorized');
    expect(afterRevoke.body.detail).toBe('The token has been revoked');

    const expired = await mintPersonalAccessToken(stack.database.db, { name: 'expired', scopes: ['orch:read'], expiresAt: new Date(Date.now() - 1000) });
    const afterExpiry = await get(expired.token);
    expectProblem(afterExpiry, 401, 'unauthorized');
    expect(afterExpiry.body.detail).toBe('The token has expired');
  });
});

describe('service accounts and POST /oauth/token', () => {
  it('creates a service account only for orch:admin, shows its secret once and stores its hash', async () => {
    const refused = await call(stack.baseUrl, 'POST', '/v1/orch/service-accounts', { token: await stack.token(['orch:write']), json: { name: 'x', scopes: ['orch:read'] } });
    expectProblem(refused, 403, 'insufficient_scope');

    expect(account).toMatchObject({ client_id: expect.stringMatching(/^sa_/), client_secret: expect.stringMatching(/^hnd_sk_/), name: 'billing-bot', scopes: ['orch:read', 'orch:write'] });
    const rows = await stack.database.db('service_accounts').select('*');
    expect(JSON.stringify(rows)).not.toContain(account.client_secret.slice('hnd_sk_'.length));
    expect(rows.find((row: { client_id: string }) => row.client_id === account.client_id)).toMatchObject({ secret_hash: sha256Hex(account.client_secret) });
  });

  it.each([
    ['HTTP Basic', () => ({ ...form({ grant_type: 'client_credentials' }), headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: basic(account.client_id, account.client_secret) } })],
    ['a form-encoded body', () => form({ grant_type: 'client_credentials', client_id: account.client_id, client_secret: account.client_secret })],
    ['a JSON body', () => ({ json: { grant_type: 'client_credentials', client_id: account.client_id, client_secret: account.client_secret } })],
  ])('issues an access token for client credentials in %s', async (_name, options) => {
    const reply = await requestToken(options());
    expect(reply.status).toBe(200);
    expect(reply.headers.get('cache-control')).toBe('no-store');
    expect(reply.body).toEqual({ access_token: expect.any(String), token_type: 'Bearer', expires_in: 3600, scope: 'orch:read orch:write' });
    expect(decodeProtectedHeader(reply.body.access_token)).toMatchObject({ alg: 'EdDSA', typ: 'at+jwt' });
    expect((await get(reply.body.access_token)).status).toBe(200);
  });

  it('issues tokens that carry exactly the granted scopes', async () => {
    const full = await requestToken({ json: { grant_type: 'client_credentials', client_id: account.client_id, client_secret: account.client_secret } });
    expect((await route(full.body.access_token)).status).toBe(200);
    const admin = await call(stack.baseUrl, 'PUT', '/v1/orch/reviewers/did:web:example.com:r2', { token: full.body.access_token, json: { display_name: 'R2' } });
    expectProblem(admin, 403, 'insufficient_scope');

    const narrowed = await requestToken({ json: { grant_type: 'client_credentials', client_id: account.client_id, client_secret: account.client_secret, scope: 'orch:read' } });
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
    const reply = await requestToken({ ...form({ grant_type: 'client_credentials' }), headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: authorization() } });
    expectProblem(reply, 401, 'invalid_client');
    expect(reply.body).toMatchObject({ error: 'invalid_client', error_description: expect.any(String) });
    expect(reply.headers.get('www-authenticate')).toBe('Basic realm="handoff"');
    expect(reply.headers.get('cache-control')).toBe('no-store');
  });

  it('answers 400 unsupported_grant_type for a grant other than client_credentials', async () => {
    const reply = await requestToken(form({ grant_type: 'password', username: 'a', password: 'b', client_id: account.client_id, client_secret: account.client_secret }));
    expectProblem(reply, 400, 'unsupported_grant_type');
    expect(reply.body.error).toBe('unsupported_grant_type');
  });

  it.each([['orch:admin'], ['orch:read launch:missiles']])('answers 400 invalid_scope for scope "%s", which the client was not granted', async (scope) => {
    const reply = await requestToken(form({ grant_type: 'client_credentials', client_id: account.client_id, client_secret: account.client_secret, scope }));
    expectProblem(reply, 400, 'invalid_scope');
    expect(reply.body.error).toBe('invalid_scope');
  });
});

// Last in the file: it rotates the deployment key under every other test's tokens.
describe('signing key rotation', () => {
  let other: ExtraApp;
  beforeAll(async () => {
    other = await startExtraApp(stack);
  });
  afterAll(() => other?.close());

  const kidsOf = async (baseUrl: string) => ((await call(baseUrl, 'GET', '/.well-known/jwks.json')).body.keys as JWK[]).map((key) => key.kid).sort();
  const clientToken = async () =>
    (await requestToken({ json: { grant_type: 'client_credentials', client_id: account.client_id, client_secret: account.client_secret } })).body.access_token as string;

  it('keeps old tokens valid while their key is published, signs new ones with the new key on every instance, and lists both', async () => {
    const oldToken = await clientToken();
    const oldKid = decodeProtectedHeader(oldToken).kid!;
    // Both instances have verified with (and cached) the old key set.
    expect((await get(oldToken)).status).toBe(200);
    expect((await get(oldToken, other.baseUrl)).status).toBe(200);

    const newKid = await rotateSigningKey(stack.database.db, { maxTokenTtlSeconds: stack.config.AUTH_ACCESS_TOKEN_TTL_SECONDS });
    expect(newKid).not.toBe(oldKid);

    const newToken = await clientToken();
    expect(decodeProtectedHeader(newToken).kid).toBe(newKid);
    expect((await get(newToken)).status).toBe(200);
    expect((await get(newToken, other.baseUrl)).status).toBe(200);
    expect((await get(oldToken)).status).toBe(200);
    expect((await get(oldToken, other.baseUrl)).status).toBe(200);

    for (const baseUrl of [stack.baseUrl, other.baseUrl]) expect(await kidsOf(baseUrl)).toEqual([oldKid, newKid].sort());
    expect(decodeProtectedHeader(await stack.token()).kid).toBe(newKid);
  });

  it('stops publishing the old key once every token it signed has expired', async () => {
    const [oldKey] = await stack.database.db('signing_keys').whereNotNull('retired_at').select('kid');
    await stack.database.db('signing_keys').where({ kid: oldKey.kid }).update({ publish_until: new Date(Date.now() - 1000) });
    const { kid: activeKid } = await createKeyRing(stack.database.db).signingKey();
    expect(await kidsOf(stack.baseUrl)).toEqual([activeKid]);
  });
});

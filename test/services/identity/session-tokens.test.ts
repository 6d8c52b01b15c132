import { tokenIssuer } from '../../../app/config';
import { createKeyRing, rotateSigningKey } from '../../../services/identity/issuance/key-ring';
import { authenticateBearer } from '../../../services/identity/authentication/bearer';
import { issueAccessToken } from '../../../services/identity/issuance/access-tokens';
import { registerTokenSubject } from '../../../services/identity/issuance/subjects';
import {
  authenticateSession,
  issueSessionToken,
  verifySessionToken,
} from '../../../services/identity/issuance/session-tokens';
import { signedInPerson } from '../../support/identity';
import { startStack, type Stack } from '../../support/stack';
import { DEFAULT_ORGANIZATION_ID } from '../../../domain/common/organizations';
import { createVerifiedTokenCache } from '../../../lib/verified-tokens';

let stack: Stack;
beforeAll(async () => {
  stack = await startStack();
});
afterAll(() => stack.stop());

const deps = () => ({
  db: stack.database.db,
  keyRing: createKeyRing(stack.database.db),
  settings: { issuer: tokenIssuer(stack.config), audience: stack.config.AUTH_AUDIENCE },
});

describe('session tokens', () => {
  it('carry the Passport, its organization and the credential that signed in', async () => {
    const person = await signedInPerson(stack);
    const result = await authenticateSession(deps(), person.sessionToken);
    expect(result).toEqual({ ok: true, session: { ...person.session, expires_at: person.session.expires_at } });
    expect(result.ok && result.session.credential).toEqual({ type: 'device_key', id: person.kid });
  });

  it('die with the credential they are bound to', async () => {
    const person = await signedInPerson(stack);
    await stack.database
      .db('passport_keys')
      .where({ kid: person.kid })
      .update({ status: 'revoked', revoked_at: new Date() });
    expect(await verifySessionToken(deps(), person.sessionToken)).toMatchObject({ ok: true });
    expect(await authenticateSession(deps(), person.sessionToken)).toEqual({
      ok: false,
      reason: 'The device key this session was signed in with is no longer active',
    });
  });

  it('refuse an access token, an expired session and a tampered one', async () => {
    const { keyRing, settings } = deps();
    const access = await issueAccessToken(keyRing, settings, {
      subject: 'x',
      scopes: ['platform:read'],
      organizationId: DEFAULT_ORGANIZATION_ID,
      ttlSeconds: 60,
    });
    expect(await verifySessionToken(deps(), access)).toMatchObject({
      ok: false,
      reason: expect.stringContaining('not valid'),
    });
    const person = await signedInPerson(stack);
    const expired = await issueSessionToken(keyRing, settings, {
      ...person.session,
      ttlSeconds: 60,
      now: new Date(Date.now() - 3600_000),
    });
    expect(await verifySessionToken(deps(), expired.token)).toEqual({
      ok: false,
      reason: 'The session token has expired',
    });
    const [header = '', payload = '', signature = ''] = person.sessionToken.split('.');
    const forged = Buffer.from(
      JSON.stringify({ ...JSON.parse(Buffer.from(payload, 'base64url').toString()), pid: 'pp_someone_else' }),
    ).toString('base64url');
    expect(await verifySessionToken(deps(), `${header}.${forged}.${signature}`)).toMatchObject({ ok: false });
  });

  it('are verified once per cache, but their credential is checked on every call', async () => {
    const person = await signedInPerson(stack);
    const verified = createVerifiedTokenCache();
    const cached = { ...deps(), verified };
    expect(await authenticateSession(cached, person.sessionToken)).toMatchObject({ ok: true });
    expect(verified.get(person.sessionToken)).toMatchObject({ sub: person.session.did });
    await stack.database
      .db('passport_keys')
      .where({ kid: person.kid })
      .update({ status: 'revoked', revoked_at: new Date() });
    expect(await authenticateSession(cached, person.sessionToken)).toEqual({
      ok: false,
      reason: 'The device key this session was signed in with is no longer active',
    });
  });

  it('from the cache still expire', async () => {
    const { keyRing, settings } = deps();
    const person = await signedInPerson(stack);
    const verified = createVerifiedTokenCache();
    const issued = await issueSessionToken(keyRing, settings, { ...person.session, ttlSeconds: 60 });
    const payload = JSON.parse(Buffer.from(issued.token.split('.')[1]!, 'base64url').toString()) as Record<
      string,
      unknown
    >;
    verified.set(issued.token, { ...payload, exp: Math.floor(Date.now() / 1000) - 1 });
    expect(await verifySessionToken({ ...deps(), verified }, issued.token)).toEqual({
      ok: false,
      reason: 'The session token has expired',
    });
  });

  // Last: it withdraws the key the stack signed with until then (a new one signs after it).
  it('from the cache stop, as access tokens do, once their signing key is withdrawn early', async () => {
    const { db } = stack.database;
    const withdrawn = await rotateSigningKey(db, { maxTokenTtlSeconds: stack.config.AUTH_ACCESS_TOKEN_TTL_SECONDS });
    const person = await signedInPerson(stack);
    // A key ring that rereads the keys on every call, so the withdrawal reaches it at once.
    const cached = { ...deps(), keyRing: createKeyRing(db, { cacheTtlMs: 0 }), verified: createVerifiedTokenCache() };
    await registerTokenSubject(db, {
      subject: 'withdrawn',
      organizationId: DEFAULT_ORGANIZATION_ID,
      scopes: ['platform:read'],
    });
    const access = await issueAccessToken(cached.keyRing, cached.settings, {
      subject: 'withdrawn',
      scopes: ['platform:read'],
      organizationId: DEFAULT_ORGANIZATION_ID,
      ttlSeconds: 60,
    });
    expect(await authenticateBearer(cached, access)).toMatchObject({ ok: true });
    expect(await authenticateSession(cached, person.sessionToken)).toMatchObject({ ok: true });
    expect([cached.verified.get(access), cached.verified.get(person.sessionToken)]).toEqual([
      expect.objectContaining({ sub: 'withdrawn' }),
      expect.objectContaining({ sub: person.session.did }),
    ]);

    await rotateSigningKey(db, { maxTokenTtlSeconds: stack.config.AUTH_ACCESS_TOKEN_TTL_SECONDS });
    await db('signing_keys')
      .where({ kid: withdrawn })
      .update({ publish_until: new Date(Date.now() - 1000) });
    expect(await authenticateBearer(cached, access)).toEqual({
      ok: false,
      reason: 'The token was not signed by a key of this deployment',
    });
    expect(await authenticateSession(cached, person.sessionToken)).toEqual({
      ok: false,
      reason: 'The session token was not signed by a key of this deployment',
    });
  });
});

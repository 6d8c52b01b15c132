import { tokenIssuer } from '../../app/config';
import { createKeyRing } from '../../services/auth/key-ring';
import { issueAccessToken } from '../../services/auth/tokens';
import { authenticateSession, issueSessionToken, verifySessionToken } from '../../services/sessions/session-tokens';
import { signedInPerson } from '../support/identity';
import { startStack, type Stack } from '../support/stack';
import { DEFAULT_ORGANIZATION_ID } from '../../domain/organizations';

let stack: Stack;
beforeAll(async () => {
  stack = await startStack();
});
afterAll(() => stack.stop());

const deps = () => ({ db: stack.database.db, keyRing: createKeyRing(stack.database.db), settings: { issuer: tokenIssuer(stack.config), audience: stack.config.AUTH_AUDIENCE } });

describe('session tokens', () => {
  it('carry the Passport, its organization and the credential that signed in', async () => {
    const person = await signedInPerson(stack);
    const result = await authenticateSession(deps(), person.sessionToken);
    expect(result).toEqual({ ok: true, session: { ...person.session, expires_at: person.session.expires_at } });
    expect(result.ok && result.session.credential).toEqual({ type: 'device_key', id: person.kid });
  });

  it('die with the credential they are bound to', async () => {
    const person = await signedInPerson(stack);
    await stack.database.db('passport_keys').where({ kid: person.kid }).update({ status: 'revoked', revoked_at: new Date() });
    expect(await verifySessionToken(deps(), person.sessionToken)).toMatchObject({ ok: true });
    expect(await authenticateSession(deps(), person.sessionToken)).toEqual({ ok: false, reason: 'The device key this session was signed in with is no longer active' });
  });

  it('refuse an access token, an expired session and a tampered one', async () => {
    const { keyRing, settings } = deps();
    const access = await issueAccessToken(keyRing, settings, { subject: 'x', scopes: ['platform:read'], organizationId: DEFAULT_ORGANIZATION_ID, ttlSeconds: 60 });
    expect(await verifySessionToken(deps(), access)).toMatchObject({ ok: false, reason: expect.stringContaining('not valid') });
    const person = await signedInPerson(stack);
    const expired = await issueSessionToken(keyRing, settings, { ...person.session, ttlSeconds: 60, now: new Date(Date.now() - 3600_000) });
    expect(await verifySessionToken(deps(), expired.token)).toEqual({ ok: false, reason: 'The session token has expired' });
    const [header = '', payload = '', signature = ''] = person.sessionToken.split('.');
    const forged = Buffer.from(JSON.stringify({ ...JSON.parse(Buffer.from(payload, 'base64url').toString()), pid: 'pp_someone_else' })).toString('base64url');
    expect(await verifySessionToken(deps(), `${header}.${forged}.${signature}`)).toMatchObject({ ok: false });
  });
});

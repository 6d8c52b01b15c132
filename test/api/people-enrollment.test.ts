import { calculateJwkThumbprint, exportJWK, generateKeyPair, SignJWT } from 'jose';
import { mintPersonalAccessToken } from '../../services/identity/issuance/access-tokens';
import { call, expectProblem, type CallResult } from '../support/http';
import { signedInPerson } from '../support/identity';
import { useStack } from '../support/stack';

/*
 * Enrolling a person (a device registration challenge, passkey registration options) mints a Passport that
 * sessions and delegations then act as, so it takes the organization administrator's people:enroll (or
 * platform:admin); platform:write, which creates agent Passports, is not enough.
 */

const stack = useStack();

const invite = (token: string) =>
  call(stack.baseUrl, 'POST', '/v1/passports/device-challenges', { token, json: { name: 'Grace Hopper' } });
const passkeyOptions = (token: string) =>
  call(stack.baseUrl, 'POST', '/v1/webauthn/registration/options', {
    token,
    json: { userId: `grace-${Date.now()}-${Math.random()}` },
  });

function expectRefused(reply: CallResult): void {
  expectProblem(reply, 403, 'insufficient_scope');
  expect(reply.body).toMatchObject({ required_scope: 'people:enroll', required_capability: 'people:enroll' });
}

async function serviceAccountToken(scopes: string[]): Promise<string> {
  const account = await call(stack.baseUrl, 'POST', '/v1/orch/service-accounts', {
    token: await stack.token(['orch:admin', ...scopes]),
    json: { name: 'ci', scopes },
  });
  expect(account.status).toBe(201);
  const issued = await call(stack.baseUrl, 'POST', '/oauth/token', {
    json: {
      grant_type: 'client_credentials',
      client_id: account.body.client_id,
      client_secret: account.body.client_secret,
    },
  });
  expect(issued.status).toBe(200);
  return issued.body.access_token as string;
}

async function personalAccessToken(scopes: string[]): Promise<string> {
  return (await mintPersonalAccessToken(stack.database.db, { name: 'pat', scopes, organizationId: 'org_default' }))
    .token;
}

/** A delegation token an agent holds: a signed-in person's, exchanged for the Passport capabilities a person may hand on. */
async function agentDelegationToken(capabilities: string[]): Promise<string> {
  const person = await signedInPerson(stack);
  const exchanged = await call(stack.baseUrl, 'POST', '/v1/delegation-tokens/exchange', {
    json: { subject_token: person.sessionToken, capabilities: ['delegation:write', ...capabilities] },
  });
  expect(exchanged.status).toBe(201);
  const agent = await call(stack.baseUrl, 'POST', '/v1/passports', {
    token: await stack.token(['platform:write']),
    json: { type: 'agent', name: 'Enroller' },
  });
  expect(agent.status).toBe(201);
  const delegated = await call(stack.baseUrl, 'POST', '/v1/delegation-tokens', {
    token: exchanged.body.token,
    json: { agentId: agent.body.data.passportId, capabilities, duration_seconds: 600 },
  });
  expect(delegated.status).toBe(201);
  return delegated.body.token as string;
}

describe('enrolling a person', () => {
  it('refuses a service account, a personal access token and an access token that hold platform:write', async () => {
    for (const token of [
      await serviceAccountToken(['platform:write']),
      await personalAccessToken(['platform:read', 'platform:write']),
      await stack.token(['platform:write']),
    ]) {
      expectRefused(await invite(token));
      expectRefused(await passkeyOptions(token));
    }
  });

  it('refuses an agent’s delegation token, which may create agent Passports but not people', async () => {
    const token = await agentDelegationToken(['passports:create']);
    expectRefused(await invite(token));
    expect(
      (await call(stack.baseUrl, 'POST', '/v1/passports', { token, json: { type: 'agent', name: 'Helper' } })).status,
    ).toBe(201);
  });

  it('never hands people:enroll to a session or a delegation: it is administration', async () => {
    const person = await signedInPerson(stack);
    expectRefused(await invite(person.sessionToken));
    const exchanged = await call(stack.baseUrl, 'POST', '/v1/delegation-tokens/exchange', {
      json: { subject_token: person.sessionToken, capabilities: ['people:enroll'] },
    });
    expectProblem(exchanged, 403, 'delegation_widening');
  });

  it('lets people:enroll and platform:admin invite a person, and the device ceremony mints the Passport', async () => {
    for (const token of [
      await stack.token(['people:enroll']),
      await personalAccessToken(['people:enroll']),
      await stack.token(['platform:admin']),
    ]) {
      const invited = await invite(token);
      expect(invited.status).toBe(201);
      expect((await passkeyOptions(token)).status).toBe(201);
      const { publicKey, privateKey } = await generateKeyPair('EdDSA', { crv: 'Ed25519', extractable: true });
      const jwk = await exportJWK(publicKey);
      const proof = await new SignJWT({ challenge: invited.body.challenge, deviceId: 'laptop' })
        .setProtectedHeader({ alg: 'EdDSA', typ: 'device-proof+jwt', kid: await calculateJwkThumbprint(jwk) })
        .setIssuedAt()
        .sign(privateKey);
      const registered = await call(stack.baseUrl, 'POST', '/v1/passports/devices', {
        json: { proof, deviceId: 'laptop', publicKey: jwk },
      });
      expect(registered.status).toBe(201);
      expect(registered.body.data).toMatchObject({ type: 'individual', name: 'Grace Hopper' });
    }
  });

  it('still lets platform:write create an agent’s Passport', async () => {
    const created = await call(stack.baseUrl, 'POST', '/v1/passports', {
      token: await serviceAccountToken(['platform:write']),
      json: { type: 'agent', name: 'Summarizer' },
    });
    expect(created.status).toBe(201);
    expect(created.body.data).toMatchObject({ type: 'agent' });
  });

  it('shows people:enroll on both operations of the OpenAPI document', async () => {
    const document = (await call(stack.baseUrl, 'GET', '/openapi.json')).body;
    for (const path of ['/v1/passports/device-challenges', '/v1/webauthn/registration/options']) {
      expect(document.paths[path].post).toMatchObject({
        security: [{ bearerAuth: ['people:enroll'] }],
        'x-capability': 'people:enroll',
      });
    }
  });
});

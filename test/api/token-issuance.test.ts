import { randomUUID } from 'node:crypto';
import { calculateJwkThumbprint, decodeJwt, exportJWK, generateKeyPair, SignJWT, type KeyLike } from 'jose';
import { mintPersonalAccessToken } from '../../services/identity/issuance/access-tokens';
import { call, expectProblem, type CallResult } from '../support/http';
import { signedInPerson, type SignedInPerson } from '../support/identity';
import { SoftwareAuthenticator } from '../support/software-authenticator';
import { useStack } from '../support/stack';

/**
 * "A human decided, and you can prove which one": a token that acts as a person is issued only to a caller
 * that proves that person's credential. Every issuing path is tried by callers that do not.
 */
const stack = useStack();

interface Issued {
  token: string;
  token_id: string;
  delegation_id: string;
}

const post = (path: string, json: unknown, token?: string) =>
  call(stack.baseUrl, 'POST', path, { json, ...(token ? { token } : {}) });
const exchange = (subject_token: string, json: Record<string, unknown> = {}) =>
  post('/v1/delegation-tokens/exchange', { subject_token, ...json });
const delegate = (token: string, agentId: string, json: Record<string, unknown> = {}) =>
  post('/v1/delegation-tokens', { agentId, capabilities: ['agents:read'], duration_seconds: 60, ...json }, token);
const rotate = (token: string, tokenId: string) =>
  post(`/v1/delegation-tokens/${tokenId}/rotate`, { reason: 'taken over' }, token);
const tokenStatus = async (token: string, tokenId: string) =>
  (await call(stack.baseUrl, 'GET', `/v1/delegation-tokens/${tokenId}`, { token })).body.status as string;
const works = async (token: string) => (await call(stack.baseUrl, 'GET', '/v1/delegation-tokens', { token })).status;

function issued(reply: CallResult): Issued {
  expect(reply.status).toBe(201);
  return reply.body as Issued;
}

async function agentPassport(organization_id = 'org_default') {
  const passport_id = `pp_agent_${randomUUID()}`;
  const did = `did:web:agents.example:${passport_id}`;
  const now = new Date();
  await stack.database.db('passports').insert({
    passport_id,
    did,
    type: 'agent',
    name: 'Helper agent',
    organization_id,
    metadata: JSON.stringify({}),
    capabilities: [],
    status: 'active',
    created_at: now,
    updated_at: now,
  });
  return { passport_id, did };
}

/** Person P's root token (from a session) and an agent's token narrowed from it. */
async function personWithAgent() {
  const person = await signedInPerson(stack);
  const root = issued(
    await exchange(person.sessionToken, {
      capabilities: ['delegation:read', 'delegation:write', 'agents:read', 'agents:invoke'],
      duration_seconds: 3600,
    }),
  );
  const agent = await agentPassport();
  const agentToken = issued(
    await delegate(root.token, agent.passport_id, {
      capabilities: ['delegation:read', 'delegation:write', 'agents:read'],
      duration_seconds: 600,
    }),
  );
  return { person, root, agent, agentToken };
}

async function serviceAccountToken(): Promise<string> {
  const created = await post(
    '/v1/orch/service-accounts',
    { name: `sa-${randomUUID().slice(0, 8)}`, scopes: ['platform:read', 'platform:write'] },
    await stack.token(['orch:admin', 'platform:read', 'platform:write']),
  );
  expect(created.status).toBe(201);
  const granted = await post('/oauth/token', {
    grant_type: 'client_credentials',
    client_id: created.body.client_id,
    client_secret: created.body.client_secret,
  });
  expect(granted.status).toBe(200);
  return granted.body.access_token as string;
}

function deviceProof(privateKey: KeyLike, kid: string, challenge: string) {
  return new SignJWT({ challenge })
    .setProtectedHeader({ alg: 'EdDSA', typ: 'device-proof+jwt', kid })
    .setIssuedAt()
    .sign(privateKey);
}

async function deviceSignIn(passportId: string, privateKey: KeyLike, kid: string): Promise<CallResult> {
  const challenge = await post(`/v1/passports/${passportId}/sign-in-challenges`, undefined);
  expect(challenge.status).toBe(201);
  return post(`/v1/passports/${passportId}/sessions`, {
    proof: await deviceProof(privateKey, kid, challenge.body.challenge),
  });
}

type Expected = readonly [number, string] | 'own token';

/** Who tries, and what each issuing path answers them: a refusal, or at most a token of their own. */
interface Attacker {
  name: string;
  token: () => Promise<string>;
  rotate: readonly [number, string];
  exchange: Expected;
  delegate: Expected;
}

describe('no caller without P’s credential obtains a token acting as P', () => {
  let p: Awaited<ReturnType<typeof personWithAgent>>;
  let other: SignedInPerson;
  let otherToken: Issued;
  beforeAll(async () => {
    p = await personWithAgent();
    other = await signedInPerson(stack);
    otherToken = issued(
      await exchange(other.sessionToken, { capabilities: ['delegation:read', 'delegation:write', 'agents:read'] }),
    );
  });

  const attackers: Attacker[] = [
    {
      name: 'an admin access token (every scope)',
      token: () => stack.token(),
      rotate: [403, 'passport_required'],
      exchange: [401, 'unauthorized'],
      delegate: [403, 'passport_required'],
    },
    {
      name: 'a service account',
      token: serviceAccountToken,
      rotate: [403, 'passport_required'],
      exchange: [401, 'unauthorized'],
      delegate: [403, 'passport_required'],
    },
    {
      name: 'a personal access token',
      token: async () =>
        (
          await mintPersonalAccessToken(stack.database.db, {
            name: 'ci',
            scopes: ['platform:read', 'platform:write'],
            organizationId: 'org_default',
          })
        ).token,
      rotate: [403, 'passport_required'],
      exchange: [401, 'unauthorized'],
      delegate: [403, 'passport_required'],
    },
    {
      name: 'another person’s session',
      token: async () => other.sessionToken,
      rotate: [404, 'delegation_token_not_found'],
      exchange: 'own token',
      delegate: 'own token',
    },
    {
      name: 'another person’s delegation token',
      token: async () => otherToken.token,
      rotate: [404, 'delegation_token_not_found'],
      exchange: 'own token',
      delegate: 'own token',
    },
  ];

  it.each(attackers)('$name cannot rotate P’s token, exchange into P, or delegate as P', async (attacker) => {
    const token = await attacker.token();
    expectProblem(await rotate(token, p.root.token_id), ...attacker.rotate);
    expectProblem(await rotate(token, p.agentToken.token_id), ...attacker.rotate);

    const exchanged = await exchange(token, { capabilities: ['agents:read'], duration_seconds: 60 });
    if (attacker.exchange === 'own token') expect(decodeJwt(issued(exchanged).token).sub).toBe(other.did);
    else expectProblem(exchanged, ...attacker.exchange);

    const delegated = await delegate(token, p.agent.passport_id);
    if (attacker.delegate === 'own token')
      expect(decodeJwt(issued(delegated).token)).toMatchObject({ sub: other.did, act: { sub: p.agent.did } });
    else expectProblem(delegated, ...attacker.delegate);

    // P's tokens are untouched.
    expect(await tokenStatus(p.root.token, p.root.token_id)).toBe('active');
    expect(await tokenStatus(p.root.token, p.agentToken.token_id)).toBe('active');
  });

  it('a caller without a Passport still manages P’s tokens: it lists and revokes them, and never sees a token', async () => {
    const spare = issued(await exchange(p.person.sessionToken, { capabilities: ['agents:read'] }));
    const serviceAccount = await serviceAccountToken();
    const listed = await call(stack.baseUrl, 'GET', `/v1/delegation-tokens/by-delegation/${spare.delegation_id}`, {
      token: serviceAccount,
    });
    expect(listed.body.data.map((row: { token_id: string }) => row.token_id)).toEqual([spare.token_id]);
    const revoked = await post(
      `/v1/delegation-tokens/${spare.token_id}/revoke`,
      { reason: 'offboarding' },
      serviceAccount,
    );
    expect(revoked.status).toBe(200);
    expect(revoked.body).toMatchObject({ token_id: spare.token_id, status: 'revoked' });
    expect(revoked.body.token).toBeUndefined();
  });

  it('P’s agent’s narrowed token cannot rotate its way to P’s root, nor exchange or delegate wider', async () => {
    const refused = await rotate(p.agentToken.token, p.root.token_id);
    expectProblem(refused, 403, 'delegation_outside_chain');
    expect(await tokenStatus(p.root.token, p.root.token_id)).toBe('active');

    const wider = await exchange(p.agentToken.token, { capabilities: ['agents:invoke'] });
    expectProblem(wider, 403, 'delegation_widening');
    expectProblem(
      await exchange(p.agentToken.token, { capabilities: ['agents:read'], duration_seconds: 3000 }),
      403,
      'delegation_widening',
    );
    const narrowed = issued(
      await exchange(p.agentToken.token, { capabilities: ['agents:read', 'delegation:write'], duration_seconds: 60 }),
    );
    expect(decodeJwt(narrowed.token)).toMatchObject({
      sub: p.person.did,
      act: { sub: p.agent.did },
      scope: 'agents:read delegation:write',
    });
    expectProblem(await delegate(p.agentToken.token, p.agent.passport_id), 403, 'agent_delegation_refused');
    // A narrowed token below the agent's cannot rotate the agent's either.
    expectProblem(await rotate(narrowed.token, p.agentToken.token_id), 403, 'delegation_outside_chain');
  });

  it('nobody signs in as P without P’s device key or passkey', async () => {
    const stranger = await generateKeyPair('EdDSA', { crv: 'Ed25519', extractable: true });
    const strangerKid = await calculateJwkThumbprint(await exportJWK(stranger.publicKey));
    expectProblem(
      await deviceSignIn(p.person.passport_id, stranger.privateKey, p.person.kid),
      401,
      'device_proof_invalid',
    );
    expectProblem(
      await deviceSignIn(p.person.passport_id, stranger.privateKey, strangerKid),
      401,
      'device_proof_invalid',
    );
    expectProblem(await deviceSignIn(p.person.passport_id, other.privateKey, other.kid), 401, 'device_proof_invalid');

    // A passkey answers for its own Passport only: another person's passkey that names P as its user is refused.
    const enrollment = await post(
      '/v1/webauthn/registration/options',
      { userId: `other-${randomUUID()}@acme.example`, displayName: 'Mallory' },
      await stack.token(['platform:admin']),
    );
    const mallory = new SoftwareAuthenticator();
    expect(
      (await post('/v1/webauthn/registration', { response: mallory.register(enrollment.body.options, stack.baseUrl) }))
        .status,
    ).toBe(201);
    mallory.userHandle = Buffer.from(p.person.passport_id).toString('base64url');
    const options = await post('/v1/webauthn/authentication/options', {});
    const signIn = await post('/v1/webauthn/authentication', {
      response: mallory.assert(options.body.options, stack.baseUrl),
    });
    expectProblem(signIn, 401, 'passkey_sign_in_failed');
    expect(signIn.body.reason).toBe('verification_failed');
  });
});

describe('P, proving P’s credential, still obtains tokens on every path', () => {
  it('signs in, exchanges, delegates, and rotates its own tokens and those below them', async () => {
    const { person, root, agent, agentToken } = await personWithAgent();
    const session = await deviceSignIn(person.passport_id, person.privateKey, person.kid);
    expect(session.status).toBe(201);
    expect(decodeJwt(issued(await exchange(session.body.sessionToken)).token).sub).toBe(person.did);
    expect(decodeJwt(issued(await delegate(root.token, agent.passport_id)).token)).toMatchObject({
      sub: person.did,
      act: { sub: agent.did },
    });

    // The root token rotates the agent's token below it; the agent's token rotates itself.
    const agentRotated = issued(await rotate(root.token, agentToken.token_id));
    expect(decodeJwt(agentRotated.token)).toMatchObject({
      sub: person.did,
      act: { sub: agent.did },
      fam: agentToken.delegation_id,
    });
    const again = issued(await rotate(agentRotated.token, agentRotated.token_id));
    expect(decodeJwt(again.token)).toMatchObject({ act: { sub: agent.did } });
    // A session of P rotates P's root.
    const rootRotated = issued(await rotate(person.sessionToken, root.token_id));
    expect(decodeJwt(rootRotated.token)).toMatchObject({ sub: person.did, fam: root.delegation_id });
    expect(decodeJwt(rootRotated.token).act).toBeUndefined();
  });
});

describe('delegating to an agent of another organization', () => {
  it('answers 404 agent_not_found, as for an agent that does not exist', async () => {
    const created = await post(
      '/v1/organizations',
      { org_did: `did:web:${randomUUID().slice(0, 8)}.example`, name: 'Beta' },
      await stack.token(['cloud:admin:global'], 'operator'),
    );
    expect(created.status).toBe(201);
    const beta = await stack.token(['orch:admin'], 'bob', created.body.organization_id);
    const foreignAgentId = `urn:beta:agent:triage:${randomUUID().slice(0, 8)}`;
    expect(
      (
        await post(
          '/v1/orch/agents/register',
          { agent_id: foreignAgentId, agent_name: 'Beta agent', agent_type: 'triage' },
          beta,
        )
      ).status,
    ).toBe(201);

    const person = await signedInPerson(stack);
    const root = issued(await exchange(person.sessionToken, { capabilities: ['delegation:write', 'agents:read'] }));
    const foreign = await delegate(root.token, foreignAgentId);
    const unknown = await delegate(root.token, `urn:beta:agent:triage:${randomUUID().slice(0, 8)}`);
    expectProblem(foreign, 404, 'agent_not_found');
    expectProblem(unknown, 404, 'agent_not_found');
    expect(foreign.body.title).toBe(unknown.body.title);
  });
});

describe('revoking a credential ends the delegation tokens exchanged from its sessions', () => {
  it('a device key revoked by hand', async () => {
    const { person, root, agentToken } = await personWithAgent();
    expect(await works(root.token)).toBe(200);
    const revoked = await post(
      `/v1/passports/${person.passport_id}/keys/${person.kid}/revoke`,
      { reason: 'phone lost' },
      await stack.token(['platform:write', 'people:enroll']),
    );
    expect(revoked.status).toBe(200);
    expect(await works(root.token)).toBe(401);
    expect(await works(agentToken.token)).toBe(401);
    const status = await call(stack.baseUrl, 'GET', `/v1/delegations/${root.delegation_id}`, {
      token: await stack.token(['platform:read']),
    });
    expect(status.body).toMatchObject({ status: 'revoked' });
  });

  it('records no delegation acting with a credential that is no longer active, even from a token that still verifies', async () => {
    const { person, root } = await personWithAgent();
    // As a revocation that commits between the exchange's check of the subject and its insert.
    await stack.database
      .db('passport_keys')
      .where({ kid: person.kid })
      .update({ status: 'revoked', revoked_at: new Date() });
    const narrowed = await exchange(root.token, { capabilities: ['agents:read'], duration_seconds: 60 });
    expectProblem(narrowed, 401, 'unauthorized');
    expect(narrowed.body.detail).toMatch(/device key .* no longer active/);
  });

  async function passkeyPerson() {
    const enrollment = await post(
      '/v1/webauthn/registration/options',
      { userId: `person-${randomUUID()}@acme.example`, displayName: 'Ada' },
      await stack.token(['platform:admin']),
    );
    expect(enrollment.status).toBe(201);
    const authenticator = new SoftwareAuthenticator();
    const registered = await post('/v1/webauthn/registration', {
      response: authenticator.register(enrollment.body.options, stack.baseUrl),
    });
    expect(registered.status).toBe(201);
    return {
      authenticator,
      passport_id: enrollment.body.passport_id as string,
      sessionToken: registered.body.session.session_token as string,
    };
  }

  const passkeySignIn = async (authenticator: SoftwareAuthenticator) => {
    const options = await post('/v1/webauthn/authentication/options', {});
    return post('/v1/webauthn/authentication', { response: authenticator.assert(options.body.options, stack.baseUrl) });
  };

  it('a passkey rotated away', async () => {
    const person = await passkeyPerson();
    const held = issued(await exchange(person.sessionToken, { capabilities: ['delegation:read'] }));
    expect(await works(held.token)).toBe(200);
    const options = await post(`/v1/passports/${person.passport_id}/webauthn/rotate/options`, {}, person.sessionToken);
    const replacement = new SoftwareAuthenticator();
    const rotated = await post(
      `/v1/passports/${person.passport_id}/webauthn/rotate`,
      {
        challenge: options.body.options.challenge,
        response: replacement.register(options.body.options, stack.baseUrl),
      },
      person.sessionToken,
    );
    expect(rotated.status).toBe(200);
    expect(await works(held.token)).toBe(401);
    // The new passkey's session exchanges as before.
    expect(
      await works(
        issued(await exchange(rotated.body.session.session_token, { capabilities: ['delegation:read'] })).token,
      ),
    ).toBe(200);
  });

  it('a passkey revoked for a signature counter regression (a cloned authenticator)', async () => {
    const person = await passkeyPerson();
    const clone = person.authenticator.clone();
    const session = await passkeySignIn(person.authenticator);
    const held = issued(await exchange(session.body.session_token, { capabilities: ['delegation:read'] }));
    expect(await works(held.token)).toBe(200);
    const cloned = await passkeySignIn(clone);
    expect(cloned.body.reason).toBe('counter_regression');
    expect(await works(held.token)).toBe(401);
  });
});

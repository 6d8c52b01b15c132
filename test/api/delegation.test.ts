import { randomUUID } from 'node:crypto';
import { decodeJwt, decodeProtectedHeader } from 'jose';
import { tokenIssuer } from '../../app/config';
import { createKeyRing } from '../../services/identity/issuance/key-ring';
import { issueSessionToken } from '../../services/identity/issuance/session-tokens';
import { startExtraApp } from '../support/app';
import { eventually } from '../support/eventually';
import { call, expectProblem } from '../support/http';
import { signedInPerson, type SignedInPerson } from '../support/identity';
import { useStack } from '../support/stack';

const stack = useStack();

const exchange = (json: Record<string, unknown>, token?: string) =>
  call(stack.baseUrl, 'POST', '/v1/delegation-tokens/exchange', { json, ...(token ? { token } : {}) });

async function personToken(person: SignedInPerson, json: Record<string, unknown> = {}) {
  const reply = await exchange({ subject_token: person.sessionToken, ...json });
  expect(reply.status).toBe(201);
  return reply.body as {
    token: string;
    delegation_id: string;
    token_id: string;
    expires_at: string;
    capabilities: string[];
  };
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

describe('session to delegation token exchange', () => {
  it('issues an EdDSA dt+jwt for the person, with the default capabilities and a day’s lifetime', async () => {
    const person = await signedInPerson(stack);
    const reply = await exchange({ subject_token: person.sessionToken });
    expect(reply.status).toBe(201);
    expect(reply.body).toMatchObject({
      passport_id: person.passport_id,
      did: person.did,
      capabilities: ['reasoning', 'agents:read', 'agents:invoke'],
      verification_tier: 1,
      identity_tier: 0,
      risk_level: 'standard',
      agent_did: null,
      token_type: 'Bearer',
      issued_token_type: 'urn:handoff:params:oauth:token-type:delegation',
      scope: 'reasoning agents:read agents:invoke',
    });
    const lifetime = Date.parse(reply.body.expires_at) - Date.parse(reply.body.created_at);
    expect(lifetime).toBe(86_400_000);
    expect(decodeProtectedHeader(reply.body.token)).toMatchObject({ alg: 'EdDSA', typ: 'dt+jwt' });
    const claims = decodeJwt(reply.body.token);
    expect(claims).toMatchObject({
      sub: person.did,
      jti: reply.body.token_id,
      fam: reply.body.delegation_id,
      scope: 'reasoning agents:read agents:invoke',
      cred: { type: 'device_key', id: person.kid },
    });
    expect(claims.act).toBeUndefined();
  });

  it('takes the session as the bearer token, scopes as an alias, and a duration', async () => {
    const person = await signedInPerson(stack);
    const reply = await exchange(
      { scopes: ['approvals:read'], duration_seconds: 60, environment: 'staging', risk_level: 'low' },
      person.sessionToken,
    );
    expect(reply.status).toBe(201);
    expect(reply.body).toMatchObject({
      capabilities: ['approvals:read'],
      environment: 'staging',
      risk_level: 'low',
      expires_in: expect.any(Number),
    });
    expect(reply.body.expires_in).toBeLessThanOrEqual(60);
  });

  it('refuses a missing, foreign or dead session, and an unknown capability or a duration out of range', async () => {
    expectProblem(await exchange({}), 401, 'unauthorized');
    expectProblem(await exchange({ subject_token: await stack.token(['platform:admin']) }), 401, 'unauthorized');
    const person = await signedInPerson(stack);
    await stack.database
      .db('passport_keys')
      .where({ kid: person.kid })
      .update({ status: 'revoked', revoked_at: new Date() });
    const dead = await exchange({ subject_token: person.sessionToken });
    expectProblem(dead, 401, 'unauthorized');
    expect(dead.body.detail).toMatch(/no longer active/);
    const other = await signedInPerson(stack);
    expectProblem(
      await exchange({ subject_token: other.sessionToken, capabilities: ['everything'] }),
      400,
      'validation_failed',
    );
    expectProblem(
      await exchange({ subject_token: other.sessionToken, duration_seconds: 2_592_001 }),
      400,
      'validation_failed',
    );
    expectProblem(await exchange({ subject_token: other.sessionToken, duration_seconds: 0 }), 400, 'validation_failed');
    expect((await exchange({ subject_token: other.sessionToken, duration_seconds: 2_592_000 })).status).toBe(201);
  });

  it('refuses what a signed-in person does not hold', async () => {
    const person = await signedInPerson(stack);
    const reply = await exchange({ subject_token: person.sessionToken, capabilities: ['agents:manage'] });
    expectProblem(reply, 403, 'delegation_widening');
    expect(reply.body.widening).toEqual([{ field: 'capabilities', not_held: ['agents:manage'] }]);
  });

  it('refuses when the sign-in or the Passport is below a required tier, and passes at it', async () => {
    const person = await signedInPerson(stack);
    const low = await exchange({ subject_token: person.sessionToken, required_verification_tier: 2 });
    expectProblem(low, 403, 'verification_tier_too_low');
    expect(low.body).toMatchObject({ required_tier: 2, actual_tier: 1 });
    expect((await exchange({ subject_token: person.sessionToken, required_verification_tier: 1 })).status).toBe(201);
    expectProblem(
      await exchange({ subject_token: person.sessionToken, required_identity_tier: 1 }),
      403,
      'identity_tier_too_low',
    );
    await stack.database.db('passports').where({ passport_id: person.passport_id }).update({ identity_tier: 1 });
    const raised = await exchange({ subject_token: person.sessionToken, required_identity_tier: 1 });
    expect(raised.status).toBe(201);
    expect(raised.body.identity_tier).toBe(1);
  });

  it('gives a passkey sign-in verification tier 2', async () => {
    const person = await signedInPerson(stack);
    const credential_id = `cred_${randomUUID()}`;
    await stack.database.db('webauthn_credentials').insert({
      credential_id,
      passport_id: person.passport_id,
      public_key: 'x',
      counter: 0,
      transports: [],
      status: 'active',
      created_at: new Date(),
    });
    const { token } = await issueSessionToken(
      createKeyRing(stack.database.db),
      { issuer: tokenIssuer(stack.config), audience: stack.config.AUTH_AUDIENCE },
      {
        passport_id: person.passport_id,
        did: person.did,
        organization_id: 'org_default',
        credential: { type: 'passkey', id: credential_id },
        ttlSeconds: 60,
      },
    );
    const reply = await exchange({ subject_token: token, required_verification_tier: 2 });
    expect(reply.status).toBe(201);
    expect(reply.body.verification_tier).toBe(2);
  });

  it('narrows a delegation token given as the subject, and refuses every widening', async () => {
    const person = await signedInPerson(stack);
    const parent = await personToken(person, {
      capabilities: ['approvals:read', 'agents:read'],
      duration_seconds: 600,
      environment: 'staging',
      risk_level: 'standard',
    });
    const narrowed = await exchange({
      subject_token: parent.token,
      capabilities: ['approvals:read'],
      duration_seconds: 60,
      risk_level: 'low',
    });
    expect(narrowed.status).toBe(201);
    expect(narrowed.body).toMatchObject({
      capabilities: ['approvals:read'],
      environment: 'staging',
      risk_level: 'low',
    });
    expect(decodeJwt(narrowed.body.token).chain).toEqual([parent.delegation_id, narrowed.body.delegation_id]);

    const cases: Array<[Record<string, unknown>, string]> = [
      [{ capabilities: ['approvals:read', 'tasks:read'] }, 'capabilities'],
      [{ capabilities: ['approvals:read'], duration_seconds: 3600 }, 'duration_seconds'],
      [{ capabilities: ['approvals:read'], environment: 'production' }, 'environment'],
      [{ capabilities: ['approvals:read'], risk_level: 'high' }, 'risk_level'],
    ];
    for (const [json, field] of cases) {
      const reply = await exchange({ subject_token: parent.token, duration_seconds: 60, ...json });
      expectProblem(reply, 403, 'delegation_widening');
      expect(reply.body.widening.map((w: { field: string }) => w.field)).toEqual([field]);
    }
  });
});

describe('delegation to an agent', () => {
  it('issues a token whose sub is the person and act.sub the agent, narrower than the parent', async () => {
    const person = await signedInPerson(stack);
    const parent = await personToken(person, {
      capabilities: ['agents:read', 'agents:invoke', 'delegation:write', 'delegation:read'],
      duration_seconds: 3600,
    });
    const agent = await agentPassport();
    const reply = await call(stack.baseUrl, 'POST', '/v1/delegation-tokens', {
      token: parent.token,
      json: { agentId: agent.passport_id, capabilities: ['agents:read'], duration_seconds: 600 },
    });
    expect(reply.status).toBe(201);
    expect(reply.body).toMatchObject({ did: person.did, agent_did: agent.did, capabilities: ['agents:read'] });
    const claims = decodeJwt(reply.body.token);
    expect(claims).toMatchObject({
      sub: person.did,
      act: { sub: agent.did },
      chain: [parent.delegation_id, reply.body.delegation_id],
    });

    const wider = await call(stack.baseUrl, 'POST', '/v1/delegation-tokens', {
      token: parent.token,
      json: { agentId: agent.did, capabilities: ['agents:read', 'approvals:read'], duration_seconds: 7200 },
    });
    expectProblem(wider, 403, 'delegation_widening');
    expect(wider.body.widening.map((w: { field: string }) => w.field)).toEqual(['capabilities', 'duration_seconds']);

    const unknown = await call(stack.baseUrl, 'POST', '/v1/delegation-tokens', {
      token: parent.token,
      json: { agentId: 'no-such-agent', capabilities: ['agents:read'], duration_seconds: 60 },
    });
    expectProblem(unknown, 404, 'agent_not_found');
    // The agent's own token cannot delegate again.
    const agentToken = (
      await call(stack.baseUrl, 'POST', '/v1/delegation-tokens', {
        token: parent.token,
        json: { agentId: agent.passport_id, capabilities: ['delegation:write', 'agents:read'], duration_seconds: 600 },
      })
    ).body.token;
    const onward = await call(stack.baseUrl, 'POST', '/v1/delegation-tokens', {
      token: agentToken,
      json: { agentId: agent.passport_id, capabilities: ['agents:read'], duration_seconds: 60 },
    });
    expectProblem(onward, 403, 'agent_delegation_refused');
  });

  it('needs a Passport behind the caller: a service token is refused', async () => {
    const agent = await agentPassport();
    const reply = await call(stack.baseUrl, 'POST', '/v1/delegation-tokens', {
      token: await stack.token(['platform:write']),
      json: { agentId: agent.passport_id, capabilities: ['agents:read'] },
    });
    expectProblem(reply, 403, 'passport_required');
  });
});

describe('reading, rotating and revoking', () => {
  it('lists, reads and fetches by delegation only the caller’s own tokens', async () => {
    const person = await signedInPerson(stack);
    const mine = await personToken(person, { capabilities: ['delegation:read'] });
    const other = await personToken(await signedInPerson(stack), { capabilities: ['delegation:read'] });
    const list = await call(stack.baseUrl, 'GET', '/v1/delegation-tokens?limit=1', { token: mine.token });
    expect(list.status).toBe(200);
    expect(list.body).toMatchObject({
      total_count: 1,
      has_more: false,
      data: [{ token_id: mine.token_id, status: 'active', did: person.did }],
    });
    expect(
      (await call(stack.baseUrl, 'GET', `/v1/delegation-tokens/${mine.token_id}`, { token: mine.token })).body.token_id,
    ).toBe(mine.token_id);
    expectProblem(
      await call(stack.baseUrl, 'GET', `/v1/delegation-tokens/${other.token_id}`, { token: mine.token }),
      404,
      'delegation_token_not_found',
    );
    const family = await call(stack.baseUrl, 'GET', `/v1/delegation-tokens/by-delegation/${mine.delegation_id}`, {
      token: mine.token,
    });
    expect(family.body.data.map((t: { token_id: string }) => t.token_id)).toEqual([mine.token_id]);
    expectProblem(
      await call(stack.baseUrl, 'GET', `/v1/delegation-tokens/by-delegation/${other.delegation_id}`, {
        token: mine.token,
      }),
      404,
      'delegation_not_found',
    );
    // A scoped administrator of the organization sees every token of it, page by page.
    const admin = await stack.token(['platform:read']);
    const first = await call(stack.baseUrl, 'GET', '/v1/delegation-tokens?limit=1', { token: admin });
    expect(first.body.has_more).toBe(true);
    const second = await call(stack.baseUrl, 'GET', `/v1/delegation-tokens?limit=1&cursor=${first.body.next_cursor}`, {
      token: admin,
    });
    expect(second.body.data[0].token_id).not.toBe(first.body.data[0].token_id);
  });

  it('rotates: a new jti in the same family, the old one refused', async () => {
    const person = await signedInPerson(stack);
    const held = await personToken(person, { capabilities: ['delegation:read', 'delegation:write'] });
    const rotated = await call(stack.baseUrl, 'POST', `/v1/delegation-tokens/${held.token_id}/rotate`, {
      token: held.token,
      json: { reason: 'scheduled' },
    });
    expect(rotated.status).toBe(201);
    expect(rotated.body.delegation_id).toBe(held.delegation_id);
    expect(rotated.body.token_id).not.toBe(held.token_id);
    expect(rotated.body.expires_at).toBe(held.expires_at);
    expectProblem(
      await call(stack.baseUrl, 'GET', '/v1/delegation-tokens', { token: held.token }),
      401,
      'unauthorized',
    );
    const old = await call(stack.baseUrl, 'GET', `/v1/delegation-tokens/${held.token_id}`, {
      token: rotated.body.token,
    });
    expect(old.body).toMatchObject({
      status: 'rotated',
      replaced_by: rotated.body.token_id,
      revoke_reason: 'scheduled',
    });
    expectProblem(
      await call(stack.baseUrl, 'POST', `/v1/delegation-tokens/${held.token_id}/rotate`, {
        token: rotated.body.token,
        json: { reason: 'again' },
      }),
      409,
      'delegation_token_not_active',
    );
    expectProblem(
      await call(stack.baseUrl, 'POST', `/v1/delegation-tokens/${held.token_id}/rotate`, {
        token: rotated.body.token,
        json: {},
      }),
      400,
      'validation_failed',
    );
  });

  it('revokes one token, and a delegation with every token below it; lists revocations and status', async () => {
    const person = await signedInPerson(stack);
    const root = await personToken(person, { capabilities: ['delegation:read', 'delegation:write', 'agents:read'] });
    const spare = await personToken(person, { capabilities: ['delegation:read'] });
    const agent = await agentPassport();
    const child = (
      await call(stack.baseUrl, 'POST', '/v1/delegation-tokens', {
        token: root.token,
        json: { agentId: agent.passport_id, capabilities: ['agents:read'], duration_seconds: 600 },
      })
    ).body;

    const revokedOne = await call(stack.baseUrl, 'POST', `/v1/delegation-tokens/${spare.token_id}/revoke`, {
      token: person.sessionToken,
      json: { reason: 'lost laptop' },
    });
    expect(revokedOne.status).toBe(200);
    expect(revokedOne.body).toMatchObject({ status: 'revoked', revoke_reason: 'lost laptop' });
    expectProblem(await call(stack.baseUrl, 'GET', '/v1/agents', { token: spare.token }), 401, 'unauthorized');
    expect((await call(stack.baseUrl, 'GET', '/v1/agents', { token: child.token })).status).toBe(200);

    expectProblem(
      await call(stack.baseUrl, 'POST', `/v1/delegations/${root.delegation_id}/revoke`, {
        token: root.token,
        json: { revoked_by: 'did:web:someone.else', reason: 'x' },
      }),
      403,
      'revoked_by_mismatch',
    );
    const status0 = await call(stack.baseUrl, 'GET', `/v1/delegations/${child.delegation_id}/revocation`, {
      token: root.token,
    });
    // The spec gives the revocation object only when revoked: the field is absent, never null.
    expect(status0.body).toEqual({ delegation_id: child.delegation_id, is_revoked: false });
    expect(status0.body).not.toHaveProperty('revocation');
    const active = await call(stack.baseUrl, 'GET', `/v1/delegations/${child.delegation_id}`, { token: root.token });
    expect(active.body).toMatchObject({ status: 'active', is_revoked: false });
    expect(active.body).not.toHaveProperty('revocation');
    const schemas = (await call(stack.baseUrl, 'GET', '/openapi.json')).body.components.schemas as Record<
      string,
      { required?: string[]; properties: Record<string, object> }
    >;
    for (const name of ['DelegationRevocationStatus', 'DelegationStatus']) {
      expect(schemas[name]!.required).not.toContain('revocation');
      expect(JSON.stringify(schemas[name]!.properties.revocation)).not.toContain('null');
    }

    const revoked = await call(stack.baseUrl, 'POST', `/v1/delegations/${root.delegation_id}/revoke`, {
      token: root.token,
      json: { revoked_by: person.did, reason: 'offboarding', metadata: { ticket: 'IT-7' } },
    });
    expect(revoked.status).toBe(201);
    expect(revoked.body).toMatchObject({
      delegation_id: root.delegation_id,
      revoked_by: person.did,
      reason: 'offboarding',
      metadata: { ticket: 'IT-7' },
      token_id: null,
    });
    // The child, made from the revoked delegation, dies with it.
    expectProblem(await call(stack.baseUrl, 'GET', '/v1/agents', { token: child.token }), 401, 'unauthorized');
    expectProblem(await call(stack.baseUrl, 'GET', '/v1/agents', { token: root.token }), 401, 'unauthorized');

    const reader = (await personToken(person, { capabilities: ['delegation:read', 'delegation:write'] })).token;
    const again = await call(stack.baseUrl, 'POST', `/v1/delegations/${root.delegation_id}/revoke`, {
      token: person.sessionToken,
      json: {},
    });
    expect(again.status).toBe(200);
    expect(again.body.id).toBe(revoked.body.id);
    const status = await call(stack.baseUrl, 'GET', `/v1/delegations/${child.delegation_id}/revocation`, {
      token: reader,
    });
    expect(status.body).toMatchObject({
      delegation_id: child.delegation_id,
      is_revoked: true,
      revocation: { id: revoked.body.id },
    });
    const detail = await call(stack.baseUrl, 'GET', `/v1/delegations/${child.delegation_id}`, { token: reader });
    expect(detail.body).toMatchObject({
      status: 'revoked',
      is_revoked: true,
      parent_delegation_id: root.delegation_id,
      agent_did: agent.did,
    });

    const list = await call(
      stack.baseUrl,
      'GET',
      `/v1/delegations/revocations?revoked_by=${encodeURIComponent(person.did)}&limit=100`,
      { token: reader },
    );
    expect(list.body.data.map((r: { id: string }) => r.id)).toEqual([revoked.body.id, expect.any(String)]);
    const since = await call(
      stack.baseUrl,
      'GET',
      `/v1/delegations/revocations?since=${encodeURIComponent(revoked.body.revoked_at)}`,
      { token: reader },
    );
    expect(since.body.data.map((r: { id: string }) => r.id)).toEqual([revoked.body.id]);
    expectProblem(
      await call(stack.baseUrl, 'GET', '/v1/delegations/revocations?limit=101', { token: reader }),
      400,
      'validation_failed',
    );
    expectProblem(
      await call(stack.baseUrl, 'GET', '/v1/delegations/dlg_nope', { token: reader }),
      404,
      'delegation_not_found',
    );
  });

  it('lets a delegation token revoke only its own delegation and those below it; the person and an administrator revoke any', async () => {
    const person = await signedInPerson(stack);
    const root = await personToken(person, { capabilities: ['delegation:read', 'delegation:write', 'agents:read'] });
    const narrowedReply = await exchange({
      subject_token: root.token,
      capabilities: ['delegation:write', 'agents:read'],
      duration_seconds: 600,
    });
    expect(narrowedReply.status).toBe(201);
    const narrowed = narrowedReply.body as typeof root;
    const agent = await agentPassport();
    const delegated = await call(stack.baseUrl, 'POST', '/v1/delegation-tokens', {
      token: root.token,
      json: { agentId: agent.passport_id, capabilities: ['delegation:write', 'agents:read'], duration_seconds: 600 },
    });
    expect(delegated.status).toBe(201);
    const agentHeld = delegated.body as typeof root;
    const revokeDelegation = (delegationId: string, token: string) =>
      call(stack.baseUrl, 'POST', `/v1/delegations/${delegationId}/revoke`, { token, json: { reason: 'probe' } });
    const revokeToken = (tokenId: string, token: string) =>
      call(stack.baseUrl, 'POST', `/v1/delegation-tokens/${tokenId}/revoke`, { token, json: { reason: 'probe' } });

    // A narrowed token and the agent's token aim above (the root) or beside (each other) their own delegation.
    for (const caller of [narrowed, agentHeld]) {
      const refused = await revokeDelegation(root.delegation_id, caller.token);
      expectProblem(refused, 403, 'delegation_outside_chain');
      expect(refused.body.detail).toMatch(root.delegation_id);
      expectProblem(await revokeToken(root.token_id, caller.token), 403, 'delegation_outside_chain');
    }
    expectProblem(await revokeDelegation(narrowed.delegation_id, agentHeld.token), 403, 'delegation_outside_chain');
    expectProblem(await revokeDelegation(agentHeld.delegation_id, narrowed.token), 403, 'delegation_outside_chain');
    expect((await call(stack.baseUrl, 'GET', '/v1/agents', { token: root.token })).status).toBe(200);
    expect(await stack.database.db('delegation_revocations').where({ delegation_id: root.delegation_id })).toEqual([]);

    // Another person, and another organization's administrator, see no such delegation.
    const stranger = await personToken(await signedInPerson(stack), { capabilities: ['delegation:write'] });
    expectProblem(await revokeDelegation(root.delegation_id, stranger.token), 404, 'delegation_not_found');
    expectProblem(await revokeToken(root.token_id, stranger.token), 404, 'delegation_token_not_found');
    const organization = await call(stack.baseUrl, 'POST', '/v1/organizations', {
      token: await stack.token(['cloud:admin:global'], 'operator'),
      json: { org_did: `did:web:${randomUUID().slice(0, 8)}.example`, name: 'Elsewhere' },
    });
    expect(organization.status).toBe(201);
    const foreignAdmin = await stack.token(['platform:admin'], 'foreign-admin', organization.body.organization_id);
    expectProblem(await revokeDelegation(root.delegation_id, foreignAdmin), 404, 'delegation_not_found');
    expectProblem(await revokeToken(root.token_id, foreignAdmin), 404, 'delegation_token_not_found');

    // Its own delegation, and one below it, a token may revoke; the person's session and an administrator any.
    expect((await revokeDelegation(narrowed.delegation_id, narrowed.token)).status).toBe(201);
    expect((await revokeToken(agentHeld.token_id, root.token)).status).toBe(200);
    const spare = await personToken(person, { capabilities: ['agents:read'] });
    expect((await revokeDelegation(spare.delegation_id, person.sessionToken)).status).toBe(201);
    expect((await revokeDelegation(root.delegation_id, await stack.token(['platform:write']))).status).toBe(201);
    expectProblem(await call(stack.baseUrl, 'GET', '/v1/agents', { token: root.token }), 401, 'unauthorized');
  });

  it('is refused by another API instance within a second of the revocation', async () => {
    const second = await startExtraApp(stack);
    try {
      const person = await signedInPerson(stack);
      const held = await personToken(person, { capabilities: ['delegation:read', 'delegation:write', 'agents:read'] });
      expect((await call(second.baseUrl, 'GET', '/v1/agents', { token: held.token })).status).toBe(200);
      const revoked = await call(stack.baseUrl, 'POST', `/v1/delegation-tokens/${held.token_id}/revoke`, {
        token: held.token,
        json: { reason: 'compromised' },
      });
      expect(revoked.status).toBe(200);
      const revokedAt = Date.now();
      await eventually(
        async () => (await call(second.baseUrl, 'GET', '/v1/agents', { token: held.token })).status,
        (status) => status === 401,
        { timeoutMs: 1000, everyMs: 20 },
      );
      expect(Date.now() - revokedAt).toBeLessThan(1000);
    } finally {
      await second.close();
    }
  });
});

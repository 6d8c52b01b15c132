import type { PublicKeyCredentialCreationOptionsJSON } from '@simplewebauthn/server';
import { DEFAULT_ORGANIZATION_ID } from '../../domain/common/organizations';
import { signedInPerson } from '../support/identity';
import { call, expectProblem, type CallResult } from '../support/http';
import { FLAGS, SoftwareAuthenticator } from '../support/software-authenticator';
import { useStack } from '../support/stack';

let adminToken: string;
let counter = 0;

const stack = useStack();
beforeAll(async () => {
  adminToken = await stack.token(['platform:admin']);
});

const origin = () => stack.baseUrl;
const post = (path: string, json: unknown, token?: string) =>
  call(stack.baseUrl, 'POST', path, { json, ...(token ? { token } : {}) });

async function enroll(userId = `person-${++counter}@acme.example`) {
  const reply = await post('/v1/webauthn/registration/options', { userId, displayName: 'Ada Lovelace' }, adminToken);
  expect(reply.status).toBe(201);
  return reply.body as {
    passport_id: string;
    options: PublicKeyCredentialCreationOptionsJSON;
    expires_at: string;
    enrollment_url: string;
  };
}

async function enrolledPerson() {
  const enrollment = await enroll();
  const authenticator = new SoftwareAuthenticator();
  const reply = await post('/v1/webauthn/registration', {
    response: authenticator.register(enrollment.options, origin()),
  });
  expect(reply.status).toBe(201);
  return {
    authenticator,
    passport_id: enrollment.passport_id,
    sessionToken: reply.body.session.session_token as string,
  };
}

async function signIn(
  authenticator: SoftwareAuthenticator,
  overrides: Parameters<SoftwareAuthenticator['assert']>[2] = {},
): Promise<CallResult> {
  const options = await post('/v1/webauthn/authentication/options', {});
  expect(options.status).toBe(201);
  return post('/v1/webauthn/authentication', {
    response: authenticator.assert(options.body.options, origin(), overrides),
  });
}

/** A call only a live session of this person can make. */
const sessionWorks = async (passportId: string, token: string) =>
  (await post(`/v1/passports/${passportId}/webauthn/credentials/options`, {}, token)).status;

const passkeyRow = (credentialId: string) =>
  stack.database.db('webauthn_credentials').where({ credential_id: credentialId }).first();

describe('passkey enrollment', () => {
  it('mints an individual Passport in the admin’s organization and signs the person in', async () => {
    const enrollment = await enroll('ada@acme.example');
    expect(enrollment.options).toMatchObject({
      rp: { id: '127.0.0.1', name: 'Handoff' },
      user: {
        id: Buffer.from(enrollment.passport_id).toString('base64url'),
        name: 'ada@acme.example',
        displayName: 'Ada Lovelace',
      },
      authenticatorSelection: { residentKey: 'required', userVerification: 'required' },
      attestation: 'none',
    });
    expect(enrollment.enrollment_url).toMatch(new RegExp(`^${origin()}/passkeys#enrollment=[A-Za-z0-9_-]+$`));

    const authenticator = new SoftwareAuthenticator();
    const reply = await post('/v1/webauthn/registration', {
      response: authenticator.register(enrollment.options, origin()),
    });
    expect(reply.status).toBe(201);
    const host = new URL(origin()).host.replace(':', '%3A');
    expect(reply.body.passport).toEqual({
      passport_id: enrollment.passport_id,
      did: `did:web:${host}:passports:${enrollment.passport_id}`,
      type: 'individual',
      name: 'Ada Lovelace',
      organization_id: DEFAULT_ORGANIZATION_ID,
      status: 'active',
      created_at: expect.any(String),
    });
    expect(reply.body.passkey).toMatchObject({
      credential_id: authenticator.id,
      passport_id: enrollment.passport_id,
      status: 'active',
      transports: ['internal'],
    });
    expect(reply.body.session).toMatchObject({
      token_type: 'session',
      passport_id: enrollment.passport_id,
      credential: { type: 'passkey', id: authenticator.id },
    });
    expect(await sessionWorks(enrollment.passport_id, reply.body.session.session_token)).toBe(201);

    expectProblem(
      await post('/v1/webauthn/registration/options', { userId: 'ada@acme.example' }, adminToken),
      409,
      'person_already_enrolled',
    );
  });

  it('is started by an organization admin only', async () => {
    expectProblem(await post('/v1/webauthn/registration/options', { userId: 'bob@acme.example' }), 401, 'unauthorized');
    expectProblem(
      await post(
        '/v1/webauthn/registration/options',
        { userId: 'bob@acme.example' },
        await stack.token(['platform:write', 'platform:read']),
      ),
      403,
      'insufficient_scope',
    );
  });

  it('refuses a replayed challenge: the same registration answers once', async () => {
    const enrollment = await enroll();
    const response = new SoftwareAuthenticator().register(enrollment.options, origin());
    expect((await post('/v1/webauthn/registration', { response })).status).toBe(201);
    const replay = await post('/v1/webauthn/registration', { response });
    expectProblem(replay, 400, 'webauthn_challenge_invalid');
    expect(replay.body.reason).toBe('challenge_unknown');
  });

  it('refuses an expired challenge, and it stays used up', async () => {
    const enrollment = await enroll();
    await stack.database
      .db('webauthn_challenges')
      .where({ challenge: enrollment.options.challenge })
      .update({ expires_at: new Date(Date.now() - 1000) });
    const response = new SoftwareAuthenticator().register(enrollment.options, origin());
    const late = await post('/v1/webauthn/registration', { response });
    expectProblem(late, 400, 'webauthn_challenge_invalid');
    expect(late.body.reason).toBe('challenge_expired');
    expect(late.body.detail).toContain('expired');
    expect((await post('/v1/webauthn/registration', { response })).body.reason).toBe('challenge_unknown');
    expect(await stack.database.db('passports').where({ passport_id: enrollment.passport_id }).first()).toBeUndefined();
  });

  it.each([
    ['without user verification (UV flag missing)', { flags: FLAGS.UP | FLAGS.AT }, /user could not be verified/i],
    ['without user presence', { flags: FLAGS.UV | FLAGS.AT }, /not present/i],
    ['from another origin', { origin: 'https://evil.example' }, /origin/i],
    ['for another relying party', { rpId: 'evil.example' }, /RP ID/i],
  ])('refuses a passkey made %s', async (_name, overrides, detail) => {
    const enrollment = await enroll();
    const reply = await post('/v1/webauthn/registration', {
      response: new SoftwareAuthenticator().register(enrollment.options, origin(), overrides),
    });
    expectProblem(reply, 400, 'webauthn_response_invalid');
    expect(reply.body.detail).toMatch(detail);
    expect(await stack.database.db('passports').where({ passport_id: enrollment.passport_id }).first()).toBeUndefined();
  });

  it('does not let a sign-in challenge answer a registration', async () => {
    const enrollment = await enroll();
    const signInOptions = await post('/v1/webauthn/authentication/options', {});
    const response = new SoftwareAuthenticator().register(enrollment.options, origin(), {
      challenge: signInOptions.body.options.challenge,
    });
    expect((await post('/v1/webauthn/registration', { response })).body.reason).toBe('challenge_unknown');
  });
});

describe('passkey sign-in', () => {
  it('gives a short-lived session bound to the passkey, and records the counter', async () => {
    const person = await enrolledPerson();
    const reply = await signIn(person.authenticator);
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({
      token_type: 'session',
      passport_id: person.passport_id,
      credential: { type: 'passkey', id: person.authenticator.id },
    });
    expect(reply.body.expires_in).toBeGreaterThan(800);
    expect(reply.body.expires_in).toBeLessThanOrEqual(900);
    expect(await sessionWorks(person.passport_id, reply.body.session_token)).toBe(201);
    const row = await passkeyRow(person.authenticator.id);
    expect({ ...row, counter: Number(row.counter) }).toMatchObject({
      counter: 1,
      status: 'active',
      last_used_at: expect.any(Date),
    });
  });

  it('refuses a replayed assertion', async () => {
    const person = await enrolledPerson();
    const options = await post('/v1/webauthn/authentication/options', {});
    const response = person.authenticator.assert(options.body.options, origin());
    expect((await post('/v1/webauthn/authentication', { response })).status).toBe(200);
    const replay = await post('/v1/webauthn/authentication', { response });
    expectProblem(replay, 400, 'webauthn_challenge_invalid');
    expect(replay.body.reason).toBe('challenge_unknown');
  });

  it('refuses an expired challenge', async () => {
    const person = await enrolledPerson();
    const options = await post('/v1/webauthn/authentication/options', {});
    await stack.database
      .db('webauthn_challenges')
      .where({ challenge: options.body.options.challenge })
      .update({ expires_at: new Date(Date.now() - 1000) });
    const reply = await post('/v1/webauthn/authentication', {
      response: person.authenticator.assert(options.body.options, origin()),
    });
    expectProblem(reply, 400, 'webauthn_challenge_invalid');
    expect(reply.body.reason).toBe('challenge_expired');
  });

  it.each([
    ['without user verification (UV flag missing)', { flags: FLAGS.UP }, /user could not be verified/i],
    ['from another origin', { origin: 'http://localhost:1' }, /origin/i],
    ['for another relying party', { rpId: 'evil.example' }, /RP ID/i],
  ])('refuses an assertion made %s', async (_name, overrides, detail) => {
    const person = await enrolledPerson();
    const reply = await signIn(person.authenticator, overrides);
    expectProblem(reply, 401, 'passkey_sign_in_failed');
    expect(reply.body).toMatchObject({ reason: 'verification_failed', detail: expect.stringMatching(detail) });
    expect((await passkeyRow(person.authenticator.id)).status).toBe('active');
  });

  it('refuses a signature from another key', async () => {
    const person = await enrolledPerson();
    const impostor = new SoftwareAuthenticator();
    Object.assign(impostor, {
      credentialId: person.authenticator.credentialId,
      userHandle: person.authenticator.userHandle,
    });
    const reply = await signIn(impostor);
    expectProblem(reply, 401, 'passkey_sign_in_failed');
    expect(reply.body.detail).toMatch(/signature/i);
  });

  it('revokes a cloned passkey (its counter goes back), ending the sessions signed in with it', async () => {
    const person = await enrolledPerson();
    const clone = person.authenticator.clone();
    const first = await signIn(person.authenticator);
    const second = await signIn(person.authenticator);
    expect([first.status, second.status]).toEqual([200, 200]);

    const cloned = await signIn(clone);
    expectProblem(cloned, 401, 'passkey_sign_in_failed');
    expect(cloned.body).toMatchObject({ reason: 'counter_regression', detail: expect.stringContaining('from 2 to 1') });
    expect(await passkeyRow(person.authenticator.id)).toMatchObject({
      status: 'revoked',
      revoke_reason: 'counter_regression',
      revoked_at: expect.any(Date),
    });

    expect(await sessionWorks(person.passport_id, second.body.session_token)).toBe(401);
    const original = await signIn(person.authenticator);
    expectProblem(original, 401, 'passkey_sign_in_failed');
    expect(original.body.reason).toBe('passkey_revoked');
  });

  it('refuses a passkey it does not know', async () => {
    const reply = await signIn(new SoftwareAuthenticator());
    expectProblem(reply, 401, 'passkey_sign_in_failed');
    expect(reply.body.reason).toBe('passkey_unknown');
  });
});

describe('a signed-in person’s passkeys', () => {
  it('adds a passkey for another device, which then signs in', async () => {
    const person = await enrolledPerson();
    const options = await post(
      `/v1/passports/${person.passport_id}/webauthn/credentials/options`,
      {},
      person.sessionToken,
    );
    expect(options.status).toBe(201);
    expect(options.body.options.excludeCredentials).toEqual([
      { id: person.authenticator.id, type: 'public-key', transports: ['internal'] },
    ]);
    const laptop = new SoftwareAuthenticator();
    const added = await post(
      `/v1/passports/${person.passport_id}/webauthn/credentials`,
      { response: laptop.register(options.body.options, origin()) },
      person.sessionToken,
    );
    expect(added.status).toBe(201);
    expect(added.body).toMatchObject({ credential_id: laptop.id, passport_id: person.passport_id, status: 'active' });
    expect((await signIn(laptop)).body.passport_id).toBe(person.passport_id);
  });

  it('refuses without a session, with an access token, and for another person’s Passport', async () => {
    const person = await enrolledPerson();
    const other = await enrolledPerson();
    const path = `/v1/passports/${person.passport_id}/webauthn/credentials/options`;
    expectProblem(await post(path, {}), 401, 'unauthorized');
    expectProblem(await post(path, {}, adminToken), 401, 'unauthorized');
    expectProblem(await post(path, {}, other.sessionToken), 404, 'not_found');
  });

  it('rotates a passkey: the old one is revoked at once and its session refused', async () => {
    const person = await enrolledPerson();
    const session = (await signIn(person.authenticator)).body.session_token as string;
    const options = await post(`/v1/passports/${person.passport_id}/webauthn/rotate/options`, {}, session);
    expect(options.status).toBe(201);
    expect(options.body.rotates_credential_id).toBe(person.authenticator.id);

    const replacement = new SoftwareAuthenticator();
    const rotated = await post(
      `/v1/passports/${person.passport_id}/webauthn/rotate`,
      { challenge: options.body.options.challenge, response: replacement.register(options.body.options, origin()) },
      session,
    );
    expect(rotated.status).toBe(200);
    expect(rotated.body).toMatchObject({
      passkey: { credential_id: replacement.id, status: 'active' },
      revoked_credential_id: person.authenticator.id,
      session: { credential: { id: replacement.id } },
    });
    expect(await passkeyRow(person.authenticator.id)).toMatchObject({
      status: 'revoked',
      revoke_reason: 'rotated',
      replaced_by: replacement.id,
    });

    expectProblem(
      await post(`/v1/passports/${person.passport_id}/webauthn/credentials/options`, {}, session),
      401,
      'unauthorized',
    );
    expectProblem(
      await post(`/v1/passports/${person.passport_id}/webauthn/credentials/options`, {}, person.sessionToken),
      401,
      'unauthorized',
    );
    expect(await sessionWorks(person.passport_id, rotated.body.session.session_token)).toBe(201);
    expect((await signIn(person.authenticator)).body.reason).toBe('passkey_revoked');
    expect((await signIn(replacement)).status).toBe(200);
  });

  it('refuses a rotation whose body names another challenge than the passkey signed', async () => {
    const person = await enrolledPerson();
    const options = await post(`/v1/passports/${person.passport_id}/webauthn/rotate/options`, {}, person.sessionToken);
    const reply = await post(
      `/v1/passports/${person.passport_id}/webauthn/rotate`,
      {
        challenge: 'c29tZXRoaW5nLWVsc2U',
        response: new SoftwareAuthenticator().register(options.body.options, origin()),
      },
      person.sessionToken,
    );
    expectProblem(reply, 400, 'webauthn_response_invalid');
    expect((await passkeyRow(person.authenticator.id)).status).toBe('active');
  });

  it('asks a session signed in with a device key to name the passkey to rotate', async () => {
    const person = await signedInPerson(stack);
    const reply = await post(`/v1/passports/${person.passport_id}/webauthn/rotate/options`, {}, person.sessionToken);
    expectProblem(reply, 409, 'passkey_not_rotatable');
  });
});

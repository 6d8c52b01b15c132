import { createHash, randomUUID } from 'node:crypto';
import type { PublicKeyCredentialCreationOptionsJSON } from '@simplewebauthn/server';
import { call, client, expectProblem, type CallResult } from '../support/http';
import { approve, codeSentTo, guardedPerson, type GuardedPerson, type RecoveryView } from '../support/recovery';
import { SoftwareAuthenticator } from '../support/software-authenticator';
import { useStack } from '../support/stack';

// Guardians count one second after accepting, and a time lock lasts two: the real rules, shortened.
const stack = useStack({ RECOVERY_GUARDIAN_CHANGE_DELAY_SECONDS: '1', RECOVERY_TIME_LOCK_SECONDS: '2' });
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const origin = () => stack.baseUrl;

async function desk() {
  return client(stack.baseUrl, await stack.token());
}

async function passkeyOptions(passportId: string): Promise<PublicKeyCredentialCreationOptionsJSON> {
  const reply = await (await desk())('POST', `/v1/passports/${passportId}/recovery/passkey-options`);
  expect(reply.status).toBe(201);
  return reply.body.options as PublicKeyCredentialCreationOptionsJSON;
}

async function openWith(guarded: GuardedPerson, registration: unknown, contact = `c-${randomUUID()}@example.test`) {
  const reply = await (
    await desk()
  )('POST', `/v1/passports/${guarded.owner.passport_id}/recovery/requests`, {
    json: { recoveryContact: contact, reason: 'lost every device', newCredential: { type: 'passkey', registration } },
  });
  return {
    reply,
    request: reply.body as RecoveryView & { new_credential: { credential_id: string; public_key: string } },
    contact,
  };
}

async function signIn(authenticator: SoftwareAuthenticator): Promise<CallResult> {
  const options = await call(stack.baseUrl, 'POST', '/v1/webauthn/authentication/options', { json: {} });
  return call(stack.baseUrl, 'POST', '/v1/webauthn/authentication', {
    json: { response: authenticator.assert(options.body.options, origin()) },
  });
}

/** The owner's own passkey, added while signed in with their device key: the credential the recovery replaces. */
async function addOldPasskey(guarded: GuardedPerson): Promise<SoftwareAuthenticator> {
  const own = client(stack.baseUrl, guarded.owner.sessionToken);
  const path = `/v1/passports/${guarded.owner.passport_id}/webauthn/credentials`;
  const options = await own('POST', `${path}/options`, { json: {} });
  const authenticator = new SoftwareAuthenticator();
  const added = await own('POST', path, { json: { response: authenticator.register(options.body.options, origin()) } });
  expect(added.status).toBe(201);
  return authenticator;
}

const requestsOf = (passportId: string) => stack.database.db('recovery_requests').where({ passport_id: passportId });

describe('a recovery whose new credential is a passkey', () => {
  it('verifies the registration against the recovery’s challenge, has guardians approve its hash, and installs it in place of every old credential', async () => {
    const guarded = await guardedPerson(stack, 3);
    const old = await addOldPasskey(guarded);
    const reply = await (await desk())('POST', `/v1/passports/${guarded.owner.passport_id}/recovery/passkey-options`);
    expect(reply.status).toBe(201);
    const options = reply.body.options as PublicKeyCredentialCreationOptionsJSON;
    expect(options.user.id).toBe(Buffer.from(guarded.owner.passport_id).toString('base64url'));
    expect(options.excludeCredentials?.map((c) => c.id)).toEqual([old.id]);
    expect(reply.body.registration_url).toMatch(new RegExp(`^${origin()}/passkeys#recovery=[A-Za-z0-9_-]+$`));
    const authenticator = new SoftwareAuthenticator();
    const registration = authenticator.register(options, origin());

    // Refused before the challenge is taken (guardians not yet in effect): the same registration serves later.
    expectProblem((await openWith(guarded, registration)).reply, 409, 'recovery_guardians_insufficient');
    await sleep(1100);
    const { reply: opened, request, contact } = await openWith(guarded, registration);
    expect(opened.status).toBe(201);
    const { credential_id, public_key } = request.new_credential;
    expect(credential_id).toBe(authenticator.id);
    const hash = createHash('sha256').update(`${credential_id}.${public_key}`).digest('base64url');
    expect(request.new_credential).toMatchObject({ type: 'passkey', hash, counter: expect.any(Number) });
    expect(await stack.database.db('webauthn_credentials').where({ credential_id }).first()).toBeUndefined();

    const [first, second] = guarded.guardians;
    expect((await stack.mail.next(first!.email, (m) => /approval/i.test(m.subject))).text).toContain(hash);
    expectProblem(
      await approve(stack, first!.person, request, {
        approvedBy: first!.person.did,
        timestamp: new Date().toISOString(),
        nonce: request.approval_nonce,
        newCredentialHash: guarded.owner.kid,
      }),
      409,
      'recovery_credential_mismatch',
    );
    expect((await approve(stack, first!.person, request)).status).toBe(200);
    expect((await approve(stack, second!.person, request)).body).toMatchObject({ status: 'time_locked' });
    const code = await codeSentTo(stack, contact);
    const execute = `/v1/passports/${request.passport_id}/recovery/requests/${request.id}/execute`;
    const done = await (await desk())('POST', execute, { json: { confirmationCode: code } });
    expect(done.status).toBe(200);
    expect(done.body.status).toBe('completed');
    expect(done.body.revoked_credentials).toEqual(
      expect.arrayContaining([
        { type: 'passkey', id: old.id },
        { type: 'device_key', id: guarded.owner.kid },
      ]),
    );
    expect(done.body.revoked_credentials).toHaveLength(2);
    expect(await stack.database.db('webauthn_credentials').where({ credential_id }).first()).toMatchObject({
      passport_id: guarded.owner.passport_id,
      status: 'active',
      public_key,
    });

    const signedIn = await signIn(authenticator);
    expect(signedIn.status).toBe(200);
    expect(signedIn.body).toMatchObject({ did: guarded.owner.did, credential: { type: 'passkey', id: credential_id } });
    expectProblem(await signIn(old), 401, 'passkey_sign_in_failed');
    const byOldKey = await client(stack.baseUrl, guarded.owner.sessionToken)(
      'GET',
      `/v1/passports/${request.passport_id}`,
    );
    expect(byOldKey.status).toBe(401);
  });

  it('refuses another Passport’s challenge, a bad attestation, an expired or replayed challenge, writing nothing', async () => {
    const guarded = await guardedPerson(stack, 3);
    const other = await guardedPerson(stack, 3);
    await sleep(1100);
    const passportId = guarded.owner.passport_id;

    const othersOptions = await passkeyOptions(other.owner.passport_id);
    const foreign = await openWith(guarded, new SoftwareAuthenticator().register(othersOptions, origin()));
    expectProblem(foreign.reply, 400, 'webauthn_challenge_invalid');
    expect(foreign.reply.body.reason).toBe('challenge_unknown');

    const options = await passkeyOptions(passportId);
    const forged = new SoftwareAuthenticator().register(options, origin(), { origin: 'https://evil.example' });
    expectProblem((await openWith(guarded, forged)).reply, 400, 'webauthn_response_invalid');
    // A bad attestation used the challenge up, as every ceremony does.
    const late = await openWith(guarded, new SoftwareAuthenticator().register(options, origin()));
    expectProblem(late.reply, 400, 'webauthn_challenge_invalid');

    const expiring = await passkeyOptions(passportId);
    await stack.database
      .db('webauthn_challenges')
      .where({ challenge: expiring.challenge })
      .update({ expires_at: new Date(Date.now() - 1000) });
    const expired = await openWith(guarded, new SoftwareAuthenticator().register(expiring, origin()));
    expectProblem(expired.reply, 400, 'webauthn_challenge_invalid');
    expect(expired.reply.body.reason).toBe('challenge_expired');

    const malformed = await openWith(guarded, { ...forged, response: { ...forged.response, clientDataJSON: 'AAAA' } });
    expectProblem(malformed.reply, 400, 'webauthn_response_invalid');
    expect(await requestsOf(passportId)).toHaveLength(0);

    // The other Passport's challenge was left alone by the foreign try: its own request takes it, once.
    const registration = new SoftwareAuthenticator().register(othersOptions, origin());
    const first = await openWith(other, registration);
    expect(first.reply.status).toBe(201);
    const cancel = `/v1/passports/${other.owner.passport_id}/recovery/requests/${first.request.id}/cancel`;
    expect((await client(stack.baseUrl, other.owner.sessionToken)('POST', cancel)).status).toBe(200);
    const replayed = await openWith(other, registration);
    expectProblem(replayed.reply, 400, 'webauthn_challenge_invalid');
    expect(replayed.reply.body.reason).toBe('challenge_unknown');
  });

  it('fails without replacing anything when the new passkey was registered to another Passport meanwhile', async () => {
    const guarded = await guardedPerson(stack, 3);
    await sleep(1100);
    const options = await passkeyOptions(guarded.owner.passport_id);
    const { request, contact } = await openWith(guarded, new SoftwareAuthenticator().register(options, origin()));
    expect(request.status).toBe('collecting_approvals');
    const { credential_id, public_key } = request.new_credential;
    const intruder = guarded.guardians[2]!.person.passport_id;
    await stack.database.db('webauthn_credentials').insert({
      credential_id,
      passport_id: intruder,
      public_key,
      counter: 0,
      transports: [],
      status: 'active',
      created_at: new Date(),
    });
    for (const guardian of guarded.guardians.slice(0, 2)) await approve(stack, guardian.person, request);
    const code = await codeSentTo(stack, contact);
    const execute = `/v1/passports/${request.passport_id}/recovery/requests/${request.id}/execute`;
    const refused = await (await desk())('POST', execute, { json: { confirmationCode: code } });
    expectProblem(refused, 422, 'invalid_data');
    expect(refused.body.detail).toMatch(/registered to another Passport/);
    const read = await (await desk())('GET', `/v1/passports/${request.passport_id}/recovery/requests/${request.id}`);
    expect(read.body).toMatchObject({ status: 'failed', failure: { type: 'invalid_data' } });
    const byOldKey = await client(stack.baseUrl, guarded.owner.sessionToken)(
      'GET',
      `/v1/passports/${request.passport_id}`,
    );
    expect(byOldKey.status).toBe(200);
    expect(await stack.database.db('webauthn_credentials').where({ credential_id }).first()).toMatchObject({
      passport_id: intruder,
    });
  });

  // Another organization's desk hears passport_not_found: test/api/tenancy.test.ts probes it.
  it('gives options only to a recovery desk, not to the person', async () => {
    const guarded = await guardedPerson(stack, 3);
    const path = `/v1/passports/${guarded.owner.passport_id}/recovery/passkey-options`;
    const asOwner = await client(stack.baseUrl, guarded.owner.sessionToken)('POST', path);
    expect(asOwner.status).toBe(403);
    expect(asOwner.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  });
});

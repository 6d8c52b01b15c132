import { randomUUID } from 'node:crypto';
import { client, expectProblem } from '../support/http';
import { signedInPerson, type SignedInPerson } from '../support/identity';
import { approve, newDeviceKey, type RecoveryView } from '../support/recovery';
import { startRemoteParty, type ReceivedRequest, type RemoteParty } from '../support/remote-party';
import { startStack, type Stack } from '../support/stack';

// An SMS provider in the shape of Twilio's Messages API on loopback: the stack texts through it.
let provider: RemoteParty;
let stack: Stack;
beforeAll(async () => {
  provider = await startRemoteParty(() => ({ status: 201, body: { sid: `SM${randomUUID()}`, status: 'queued' } }));
  stack = await startStack({
    SMS_API_URL: provider.url,
    SMS_ACCOUNT_ID: 'AC_test',
    SMS_AUTH_TOKEN: 'sms-secret',
    SMS_FROM: '+15005550006',
    RECOVERY_GUARDIAN_CHANGE_DELAY_SECONDS: '1',
    RECOVERY_TIME_LOCK_SECONDS: '600',
  });
});
afterAll(async () => {
  await stack?.stop();
  await provider?.close();
});
afterEach(() => provider.behave(() => ({ status: 201, body: { sid: `SM${randomUUID()}`, status: 'queued' } })));

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
let numbers = 0;
const phone = () => `+1555${String(1_000_000 + (numbers += 1)).slice(-7)}`;
const textsTo = (to: string) =>
  provider.requests
    .map((request: ReceivedRequest) => Object.fromEntries(new URLSearchParams(request.raw)))
    .filter((form) => form.To === to);

async function until<T>(read: () => T, done: (value: T) => boolean, timeoutMs = 30_000): Promise<T> {
  for (const deadline = Date.now() + timeoutMs; ; await sleep(100)) {
    const value = read();
    if (done(value) || Date.now() > deadline) return value;
  }
}

async function enroll(owner: SignedInPerson, guardian: SignedInPerson, method: 'email' | 'sms', contact: string) {
  return client(stack.baseUrl, owner.sessionToken)('POST', `/v1/passports/${owner.passport_id}/recovery/guardians`, {
    json: { guardianId: guardian.did, recoveryMethod: method, contact },
  });
}

describe('guardian recovery by text message', () => {
  it('invites an sms guardian by text, and texts them and the owner’s phone when a recovery is asked and approved', async () => {
    const owner = await signedInPerson(stack, { name: 'Owner' });
    const ownerPhone = phone();
    const ownerEmail = `owner-${randomUUID()}@example.test`;
    await stack.database
      .db('passports')
      .where({ passport_id: owner.passport_id })
      .update({ metadata: JSON.stringify({ email: ownerEmail, phone: ownerPhone }) });
    const guardians: { person: SignedInPerson; contact: string; method: 'email' | 'sms' }[] = [];
    for (const method of ['sms', 'email', 'email'] as const) {
      const person = await signedInPerson(stack);
      const contact = method === 'sms' ? phone() : `g-${randomUUID()}@example.test`;
      const enrolled = await enroll(owner, person, method, contact);
      expect(enrolled.status).toBe(201);
      const accepted = await client(stack.baseUrl, person.sessionToken)(
        'POST',
        `/v1/passports/${owner.passport_id}/recovery/guardians/${enrolled.body.id}/accept`,
      );
      expect(accepted.status).toBe(200);
      guardians.push({ person, contact, method });
    }
    const smsGuardian = guardians[0]!;
    const [invitation] = textsTo(smsGuardian.contact);
    expect(invitation).toMatchObject({ From: '+15005550006' });
    expect(invitation!.Body).toContain(`/v1/passports/${owner.passport_id}/recovery/guardians/`);
    expect(invitation!.Body).toContain('/accept');
    await sleep(1100); // the guardian change delay

    const key = await newDeviceKey();
    const opened = await client(stack.baseUrl, await stack.token())(
      'POST',
      `/v1/passports/${owner.passport_id}/recovery/requests`,
      {
        json: {
          recoveryContact: `contact-${randomUUID()}@example.test`,
          reason: 'lost my phone',
          newCredential: { deviceId: 'new-phone', publicKey: key.publicKey },
        },
      },
    );
    expect(opened.status).toBe(201);
    const request = opened.body as RecoveryView;
    const asked = await until(
      () => textsTo(smsGuardian.contact),
      (texts) => texts.length >= 2,
    );
    expect(asked[1]!.Body).toContain(`/recovery/requests/${request.id}`);
    // The e-mail guardians by mail, not by text.
    await stack.mail.next(guardians[1]!.contact, (m) => /approval/i.test(m.subject));
    expect(textsTo(guardians[1]!.contact)).toEqual([]);
    expect(
      (
        await until(
          () => textsTo(ownerPhone),
          (texts) => texts.length >= 1,
        )
      )[0]!.Body,
    ).toMatch(/recovery of your Passport/i);

    // At the threshold the owner is told on every channel: mail and text.
    for (const guardian of guardians.slice(0, 2))
      expect((await approve(stack, guardian.person, request)).status).toBe(200);
    await stack.mail.next(ownerEmail, (m) => /approved a recovery/.test(m.text));
    const locked = await until(
      () => textsTo(ownerPhone),
      (texts) => texts.some((t) => /approved a recovery/.test(t.Body ?? '')),
    );
    expect(locked.some((t) => /approved a recovery/.test(t.Body ?? '') && t.Body!.includes('/cancel'))).toBe(true);
    // No text carries a confirmation code: the code goes to the recovery contact alone.
    for (const text of [...textsTo(ownerPhone), ...textsTo(smsGuardian.contact)])
      expect(text.Body).not.toMatch(/confirmation code/i);

    await client(stack.baseUrl, owner.sessionToken)(
      'POST',
      `/v1/passports/${owner.passport_id}/recovery/requests/${request.id}/cancel`,
    );
  });

  it('stores no sms guardian the provider refuses to text, and says so', async () => {
    const owner = await signedInPerson(stack);
    const guardian = await signedInPerson(stack);
    provider.behave(() => ({ status: 400, body: { code: 21211, message: 'Invalid To number' } }));
    const refused = await enroll(owner, guardian, 'sms', phone());
    expectProblem(refused, 503, 'sms_unavailable');
    expect(refused.text).not.toContain('/accept');
    const listed = await client(stack.baseUrl, owner.sessionToken)(
      'GET',
      `/v1/passports/${owner.passport_id}/recovery/guardians`,
    );
    expect(listed.body.data).toEqual([]);
  });

  it('refuses an sms guardian whose contact is not an E.164 number', async () => {
    const owner = await signedInPerson(stack);
    const guardian = await signedInPerson(stack);
    const refused = await enroll(owner, guardian, 'sms', 'someone@example.test');
    expect(refused.status).toBe(400);
  });
});

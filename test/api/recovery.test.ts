import { randomUUID } from 'node:crypto';
import { client, expectProblem } from '../support/http';
import { signedInPerson } from '../support/identity';
import {
  approve,
  approvalOf,
  codeSentTo,
  guardedPerson,
  newDeviceKey,
  untilStatus,
  type GuardedPerson,
  type RecoveryView,
} from '../support/recovery';
import { useStack } from '../support/stack';

// Guardians count one second after accepting, and a time lock lasts three: the real rules, shortened.
const stack = useStack({ RECOVERY_GUARDIAN_CHANGE_DELAY_SECONDS: '1', RECOVERY_TIME_LOCK_SECONDS: '3' });
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function openRequest(guarded: GuardedPerson, contact = `contact-${randomUUID()}@example.test`) {
  const key = await newDeviceKey();
  const desk = client(stack.baseUrl, await stack.token());
  const reply = await desk('POST', `/v1/passports/${guarded.owner.passport_id}/recovery/requests`, {
    json: {
      recoveryContact: contact,
      reason: 'lost my phone',
      newCredential: { deviceId: 'new-phone', publicKey: key.publicKey },
    },
  });
  return { reply, request: reply.body as RecoveryView, contact, key };
}

async function guardedInEffect(count = 3): Promise<GuardedPerson> {
  const guarded = await guardedPerson(stack, count);
  await sleep(1100);
  return guarded;
}

describe('guardian enrollment', () => {
  it('invites by e-mail, accepts as the guardian’s own session, and refuses the owner, a stranger and a sixth', async () => {
    const guarded = await guardedPerson(stack, 5);
    const invitation = await stack.mail.next(guarded.guardians[0]!.email);
    expect(invitation.text).toContain(`/recovery/guardians/${guarded.guardians[0]!.guardian_id}/accept`);
    const asOwner = client(stack.baseUrl, guarded.owner.sessionToken);
    const path = `/v1/passports/${guarded.owner.passport_id}/recovery/guardians`;
    const sixth = await signedInPerson(stack);
    expectProblem(
      await asOwner('POST', path, {
        json: { guardianId: sixth.did, recoveryMethod: 'email', contact: 'x@example.test' },
      }),
      409,
      'recovery_guardians_full',
    );
    expectProblem(
      await asOwner('POST', path, {
        json: { guardianId: guarded.owner.did, recoveryMethod: 'email', contact: 'o@example.test' },
      }),
      409,
      'recovery_guardian_is_owner',
    );
    const stranger = client(stack.baseUrl, sixth.sessionToken);
    expectProblem(
      await stranger('POST', path, {
        json: { guardianId: sixth.did, recoveryMethod: 'email', contact: 's@example.test' },
      }),
      403,
      'recovery_not_owner',
    );
    const admin = client(stack.baseUrl, await stack.token());
    expectProblem(
      await admin('POST', path, {
        json: { guardianId: sixth.did, recoveryMethod: 'email', contact: 's@example.test' },
      }),
      403,
      'recovery_session_required',
    );
    const listed = await asOwner('GET', path);
    expect(listed.body.data.map((g: { status: string }) => g.status)).toEqual(Array(5).fill('accepted'));
  });

  it('lets only the invited person accept, and only within the window', async () => {
    const owner = await signedInPerson(stack);
    const invited = await signedInPerson(stack);
    const other = await signedInPerson(stack);
    const enrolled = await client(stack.baseUrl, owner.sessionToken)(
      'POST',
      `/v1/passports/${owner.passport_id}/recovery/guardians`,
      {
        json: { guardianId: invited.did, recoveryMethod: 'email', contact: 'invited@example.test' },
      },
    );
    expect(enrolled.status).toBe(201);
    const accept = `/v1/passports/${owner.passport_id}/recovery/guardians/${enrolled.body.id}/accept`;
    expectProblem(await client(stack.baseUrl, other.sessionToken)('POST', accept), 403, 'recovery_not_the_guardian');
    // The window has passed: the row says so as an invitation eight days old would.
    await stack.database
      .db('recovery_guardians')
      .where({ guardian_id: enrolled.body.id })
      .update({ accept_by: new Date(Date.now() - 1000) });
    expectProblem(
      await client(stack.baseUrl, invited.sessionToken)('POST', accept),
      409,
      'recovery_invitation_expired',
    );
  });
});

describe('a recovery request', () => {
  it('refuses a request without three guardians in effect', async () => {
    const guarded = await guardedPerson(stack, 3); // accepted, not yet in effect
    expectProblem((await openRequest(guarded)).reply, 409, 'recovery_guardians_insufficient');
  });

  it('takes a strict majority of signed-in guardians, refuses every other approval, and completes after the time lock with a new worker', async () => {
    const guarded = await guardedInEffect();
    const { reply, request, contact, key } = await openRequest(guarded);
    expect(reply.status).toBe(201);
    expect(request).toMatchObject({ status: 'collecting_approvals', threshold: 2, new_credential: { hash: key.hash } });
    const [first, second] = guarded.guardians;
    const guardianMail = await stack.mail.next(first!.email, (m) => /approval/i.test(m.subject));
    expect(guardianMail.text).toContain(request.approval_nonce);
    await stack.mail.next(guarded.ownerEmail, (m) => /recovery/i.test(m.subject));

    expect((await approve(stack, first!.person, request)).status).toBe(200);
    expectProblem(await approve(stack, first!.person, request), 409, 'recovery_approval_replayed');
    expectProblem(await approve(stack, guarded.owner, request), 403, 'recovery_not_guardian');
    const other = await openOtherRequest();
    expectProblem(await approve(stack, other.guardian, request), 403, 'recovery_not_guardian');
    expectProblem(
      await approve(stack, second!.person, request, {
        ...approvalOf(second!.person, request),
        nonce: other.request.approval_nonce,
      }),
      409,
      'recovery_approval_other_request',
    );
    expectProblem(
      await approve(stack, second!.person, request, {
        ...approvalOf(second!.person, request),
        newCredentialHash: 'x'.repeat(43),
      }),
      409,
      'recovery_credential_mismatch',
    );
    expectProblem(
      await approve(stack, second!.person, request, {
        ...approvalOf(second!.person, request),
        timestamp: '2020-01-01T00:00:00Z',
      }),
      409,
      'recovery_approval_stale',
    );
    expectProblem(
      await approve(stack, second!.person, request, {
        ...approvalOf(second!.person, request),
        approvedBy: first!.person.did,
      }),
      403,
      'actor_mismatch',
    );
    const desk = client(stack.baseUrl, await stack.token());
    expectProblem(
      await desk('POST', `/v1/passports/${request.passport_id}/recovery/requests/${request.id}/approvals`, {
        json: approvalOf(second!.person, request),
      }),
      403,
      'recovery_session_required',
    );
    // A guardian change waits while the request is open.
    expectProblem(
      await client(stack.baseUrl, guarded.owner.sessionToken)(
        'DELETE',
        `/v1/passports/${request.passport_id}/recovery/guardians/${guarded.guardians[2]!.guardian_id}`,
      ),
      409,
      'recovery_request_open',
    );
    expectProblem((await openRequest(guarded)).reply, 409, 'recovery_request_open');

    const locked = await approve(stack, second!.person, request);
    expect(locked.body).toMatchObject({ status: 'time_locked', unlocks_at: expect.any(String) });
    await stack.mail.next(guarded.ownerEmail, (m) => /approved a recovery/.test(m.text));

    // The worker stops during the time lock; a new one carries the recovery on.
    await stack.stopWorker();
    await sleep(3500);
    await stack.startWorker();
    const code = await codeSentTo(stack, contact);
    const execute = `/v1/passports/${request.passport_id}/recovery/requests/${request.id}/execute`;
    const wrong = code === '00000000' ? '11111111' : '00000000';
    const refused = await desk('POST', execute, { json: { confirmationCode: wrong } });
    expectProblem(refused, 400, 'recovery_code_invalid');
    expect(refused.body.attempts_left).toBe(4);
    const done = await desk('POST', execute, { json: { confirmationCode: code } });
    expect(done.status).toBe(200);
    expect(done.body).toMatchObject({
      status: 'completed',
      revoked_credentials: [{ type: 'device_key', id: guarded.owner.kid }],
    });
    expectProblem(
      await desk('POST', execute, { json: { confirmationCode: code } }),
      409,
      'recovery_not_awaiting_confirmation',
    );
    // The old device key's session ends with its key.
    const old = await client(stack.baseUrl, guarded.owner.sessionToken)('GET', `/v1/passports/${request.passport_id}`);
    expect(old.status).toBe(401);
    const keys = await stack.database
      .db('passport_keys')
      .where({ passport_id: request.passport_id })
      .select('kid', 'status');
    expect(keys).toEqual(
      expect.arrayContaining([
        { kid: key.hash, status: 'active' },
        { kid: guarded.owner.kid, status: 'revoked' },
      ]),
    );
    const records = await stack.database.db('ledger_entries').where({ subject_id: request.id }).select('step_id');
    expect(records.map((r: { step_id: string }) => r.step_id)).toEqual(
      expect.arrayContaining([
        'requested',
        `approved:${first!.guardian_id}`,
        'time_locked',
        'code_sent',
        'code_refused:1',
        'completed',
      ]),
    );
  });

  it('is cancelled by the owner during the time lock, and by no one else', async () => {
    const guarded = await guardedInEffect();
    const { request } = await openRequest(guarded);
    for (const guardian of guarded.guardians.slice(0, 2)) await approve(stack, guardian.person, request);
    const cancel = `/v1/passports/${request.passport_id}/recovery/requests/${request.id}/cancel`;
    expectProblem(
      await client(stack.baseUrl, guarded.guardians[0]!.person.sessionToken)('POST', cancel),
      403,
      'recovery_not_owner',
    );
    const cancelled = await client(stack.baseUrl, guarded.owner.sessionToken)('POST', cancel);
    expect(cancelled.body).toMatchObject({ status: 'cancelled', ended_reason: 'cancelled_by_owner' });
    expectProblem(
      await client(stack.baseUrl, guarded.owner.sessionToken)('POST', cancel),
      409,
      'recovery_not_cancellable',
    );
  });

  it('ends at the fifth wrong code', async () => {
    const guarded = await guardedInEffect();
    const { request, contact } = await openRequest(guarded);
    for (const guardian of guarded.guardians.slice(0, 2)) await approve(stack, guardian.person, request);
    const code = await codeSentTo(stack, contact);
    const wrong = code === '00000000' ? '11111111' : '00000000';
    const desk = client(stack.baseUrl, await stack.token());
    const execute = `/v1/passports/${request.passport_id}/recovery/requests/${request.id}/execute`;
    for (let attempt = 1; attempt <= 4; attempt += 1)
      expectProblem(await desk('POST', execute, { json: { confirmationCode: wrong } }), 400, 'recovery_code_invalid');
    expectProblem(
      await desk('POST', execute, { json: { confirmationCode: wrong } }),
      409,
      'recovery_code_attempts_exhausted',
    );
    expectProblem(
      await desk('POST', execute, { json: { confirmationCode: code } }),
      409,
      'recovery_not_awaiting_confirmation',
    );
    await untilStatus(stack, await stack.token(), request, 'expired');
  });
});

/** Another Passport's open request, and one of its guardians. */
async function openOtherRequest() {
  const guarded = await guardedInEffect();
  const { request } = await openRequest(guarded);
  return { request, guardian: guarded.guardians[0]!.person };
}

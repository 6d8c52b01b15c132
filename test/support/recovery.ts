import { randomUUID } from 'node:crypto';
import { calculateJwkThumbprint, exportJWK, generateKeyPair } from 'jose';
import { client, type CallResult } from './http';
import { signedInPerson, type SignedInPerson } from './identity';
import type { Stack } from './stack';

export interface GuardedPerson {
  owner: SignedInPerson;
  ownerEmail: string;
  guardians: { person: SignedInPerson; email: string; guardian_id: string }[];
}

/** A person with an e-mail of record and `count` guardians who accepted; in effect once the change delay has passed. */
export async function guardedPerson(stack: Stack, count = 3): Promise<GuardedPerson> {
  const owner = await signedInPerson(stack, { name: 'Owner' });
  return { owner, ...(await guardOwner(stack, owner, count)) };
}

/** Gives an owner signed in any way an e-mail of record and `count` guardians who accepted. */
export async function guardOwner(
  stack: Stack,
  owner: { passport_id: string; sessionToken: string },
  count = 3,
): Promise<Omit<GuardedPerson, 'owner'>> {
  const ownerEmail = `owner-${randomUUID()}@example.test`;
  await stack.database
    .db('passports')
    .where({ passport_id: owner.passport_id })
    .update({ metadata: JSON.stringify({ email: ownerEmail }) });
  const asOwner = client(stack.baseUrl, owner.sessionToken);
  const guardians: GuardedPerson['guardians'] = [];
  for (let index = 0; index < count; index += 1) {
    const person = await signedInPerson(stack, { name: `Guardian ${index}` });
    const email = `guardian-${randomUUID()}@example.test`;
    const enrolled = await asOwner('POST', `/v1/passports/${owner.passport_id}/recovery/guardians`, {
      json: { guardianId: person.did, recoveryMethod: 'email', contact: email },
    });
    if (enrolled.status !== 201) throw new Error(`enroll answered ${enrolled.status}: ${enrolled.text}`);
    const guardianId = enrolled.body.id as string;
    const accepted = await client(stack.baseUrl, person.sessionToken)(
      'POST',
      `/v1/passports/${owner.passport_id}/recovery/guardians/${guardianId}/accept`,
    );
    if (accepted.status !== 200) throw new Error(`accept answered ${accepted.status}: ${accepted.text}`);
    guardians.push({ person, email, guardian_id: guardianId });
  }
  return { ownerEmail, guardians };
}

/** A new device key for the recovered Passport: its public JWK and its thumbprint. */
export async function newDeviceKey(): Promise<{ publicKey: object; hash: string }> {
  const { publicKey } = await generateKeyPair('EdDSA', { crv: 'Ed25519', extractable: true });
  const jwk = await exportJWK(publicKey);
  return { publicKey: { kty: jwk.kty, crv: jwk.crv, x: jwk.x }, hash: await calculateJwkThumbprint(jwk) };
}

/** A guardian's approval of the request as its body binds it. */
export function approvalOf(
  person: SignedInPerson,
  request: { approval_nonce: string; new_credential: { hash: string } },
) {
  return {
    approvedBy: person.did,
    timestamp: new Date().toISOString(),
    nonce: request.approval_nonce,
    newCredentialHash: request.new_credential.hash,
  };
}

export function approve(
  stack: Stack,
  person: SignedInPerson,
  request: RecoveryView,
  body?: object,
): Promise<CallResult> {
  return client(stack.baseUrl, person.sessionToken)(
    'POST',
    `/v1/passports/${request.passport_id}/recovery/requests/${request.id}/approvals`,
    { json: body ?? approvalOf(person, request) },
  );
}

export interface RecoveryView {
  id: string;
  passport_id: string;
  status: string;
  approval_nonce: string;
  new_credential: { hash: string };
}

/** Waits until the request reads as `status`, polling the API. */
export async function untilStatus(
  stack: Stack,
  token: string,
  request: RecoveryView,
  status: string,
  timeoutMs = 30_000,
) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const reply = await client(stack.baseUrl, token)(
      'GET',
      `/v1/passports/${request.passport_id}/recovery/requests/${request.id}`,
    );
    if (reply.body?.status === status) return reply.body as RecoveryView;
    if (Date.now() > deadline) throw new Error(`request ${request.id} is ${String(reply.body?.status)}, not ${status}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** The 8-digit code in the mail sent to the recovery contact, read after its label: the DID before it may hold 8 digits in a row. */
export async function codeSentTo(stack: Stack, to: string): Promise<string> {
  const mail = await stack.mail.next(to, (m) => /confirmation code/i.test(m.subject), 30_000);
  const code = /confirmation code: (\d{8})\b/.exec(mail.text)?.[1];
  if (!code) throw new Error('no code in the mail');
  return code;
}

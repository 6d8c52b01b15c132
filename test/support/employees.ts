import { randomUUID } from 'node:crypto';
import { call } from './http';
import type { SignedInPerson } from './identity';
import type { Stack } from './stack';

/** A fresh address, so that each test reads its own mail. */
export const newEmail = (name = 'person') => `${name}-${randomUUID().slice(0, 8)}@acme.example`;

/** Invites an employee as the admin token does, and reads the linking code from the onboarding e-mail. */
export async function inviteEmployee(stack: Stack, adminToken: string, email: string, role = 'member') {
  const reply = await call(stack.baseUrl, 'POST', '/v1/employees', { token: adminToken, json: { email, role } });
  if (reply.status !== 201) throw new Error(`POST /v1/employees answered ${reply.status}: ${reply.text}`);
  const mail = await stack.mail.next(email, (m) => m.subject === 'You are invited to Handoff');
  const linkingCode = /\b([0-9A-Z]{4}-[0-9A-Z]{4}-[0-9A-Z]{4})\b/.exec(mail.text)?.[1];
  if (!linkingCode) throw new Error('no linking code in the onboarding e-mail');
  return { employee: reply.body, linkingCode, mail };
}

/** Asks for a verification code as the person, and reads it from the e-mail (a code not seen before). */
export async function requestVerificationCode(
  stack: Stack,
  person: SignedInPerson,
  linkingCode: string,
  email: string,
) {
  const before = new Set(stack.mail.messages().map((m) => m.text));
  const reply = await call(stack.baseUrl, 'POST', `/v1/passports/${person.passport_id}/organization-links`, {
    token: person.sessionToken,
    json: { linkingCode, email },
  });
  if (reply.status !== 202) return { reply, code: undefined };
  const mail = await stack.mail.next(email, (m) => m.subject === 'Your verification code' && !before.has(m.text));
  return { reply, code: /\b([0-9]{6})\b/.exec(mail.text)?.[1] };
}

export function verify(stack: Stack, person: SignedInPerson, verificationCode: string, token = person.sessionToken) {
  return call(stack.baseUrl, 'POST', `/v1/passports/${person.passport_id}/organization-links/verify`, {
    token,
    json: { verificationCode },
  });
}

/** The six digits that are not the code: a wrong guess. */
export const wrongCode = (code: string) => String((Number(code) + 1) % 1_000_000).padStart(6, '0');

import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import type { Employee, EmployeeRole } from '../../contracts/aggregates/employee';
import { insertEmployee } from '../../db/employees';
import { MailUnavailable } from '../../lib/mail/transport';
import { enrollmentPageUrl, startEnrollment } from '../identity/passkeys/registration';
import type { Principal } from '../identity/scopes';
import { createCodeHasher, LINKING_CODE_PURPOSE, newLinkingCode } from './codes';
import type { PeopleDeps } from './settings';

export interface EmployeeRequest {
  email: string;
  role: EmployeeRole;
}

export type CreateEmployeeOutcome =
  | { ok: true; employee: Employee }
  | { ok: false; code: 'employee_exists' | 'mail_unavailable' | 'secrets_unavailable'; detail: string };

/**
 * An employee record and its onboarding e-mail: the linking code (stored as an HMAC, good for
 * EMPLOYEE_LINKING_CODE_TTL_SECONDS) and, for someone with no passkey in the organization yet, an enrollment
 * link. The mail is sent inside the transaction: the record stands only once the SMTP server took it, so an
 * invitation never exists that nobody received. `within` adds to the same transaction (an organization's creation).
 */
export async function createEmployee(
  deps: PeopleDeps,
  invitedBy: Pick<Principal, 'id' | 'organization_id'>,
  request: EmployeeRequest,
  trx?: Knex.Transaction,
): Promise<CreateEmployeeOutcome> {
  const hasher = createCodeHasher(deps.settings.passports.secretKeys);
  if (!hasher.available)
    return { ok: false, code: 'secrets_unavailable', detail: 'SECRETS_ENCRYPTION_KEY is not configured' };
  if (!deps.mailer.configured)
    return { ok: false, code: 'mail_unavailable', detail: 'This deployment sends no mail (SMTP_URL is not set)' };
  const email = request.email.toLowerCase();
  const organizationId = invitedBy.organization_id;
  const linkingCode = newLinkingCode();
  const code = hasher.hash(LINKING_CODE_PURPOSE, linkingCode);
  const now = new Date();
  const employee: Omit<Employee, 'enrollment_passport_id'> = {
    employee_id: `emp_${randomUUID()}`,
    organization_id: organizationId,
    email,
    role: request.role,
    status: 'invited',
    passport_id: null,
    invited_by: invitedBy.id,
    created_at: now,
    linking_code_expires_at: new Date(now.getTime() + deps.settings.people.linkingCodeTtlSeconds * 1000),
    linked_at: null,
    linking_code_hash: code.hash,
    hmac_key_id: code.hmac_key_id,
  };
  const write = async (tx: Knex.Transaction): Promise<CreateEmployeeOutcome> => {
    // In the transaction too: the enrollment of a new organization's first administrator names the organization.
    const enrollment = await onboardingEnrollment(
      { ...deps, webauthn: { ...deps.webauthn, db: tx } },
      organizationId,
      email,
    );
    const inserted = await insertEmployee(tx, { ...employee, enrollment_passport_id: enrollment?.passport_id ?? null });
    if (!inserted)
      return { ok: false, code: 'employee_exists', detail: `The organization has an employee ${email} already` };
    await deps.mailer.send(onboardingMessage(inserted, linkingCode, enrollment?.url));
    return { ok: true, employee: inserted };
  };
  try {
    return trx ? await write(trx) : await deps.db.transaction(write);
  } catch (error) {
    if (error instanceof MailUnavailable) return { ok: false, code: 'mail_unavailable', detail: error.message };
    throw error;
  }
}

/** A passkey enrollment for the employee, unless a person of the organization enrolled under this e-mail already. */
async function onboardingEnrollment(deps: PeopleDeps, organizationId: string, email: string) {
  const { webauthn } = deps;
  const longer = {
    ...webauthn,
    settings: {
      ...webauthn.settings,
      webauthn: { ...webauthn.settings.webauthn, challengeTtlSeconds: deps.settings.people.linkingCodeTtlSeconds },
    },
  };
  const started = await startEnrollment(longer, organizationId, { user_name: email, display_name: email });
  if (!started.ok) return undefined;
  return {
    passport_id: started.passport_id,
    url: enrollmentPageUrl(webauthn.settings.webauthn.origins[0]!, started.options),
  };
}

function onboardingMessage(employee: Employee, linkingCode: string, enrollmentUrl: string | undefined) {
  const role = employee.role === 'administrator' ? 'an administrator' : 'a member';
  const steps = enrollmentUrl
    ? [
        `Create your passkey here (the link is yours alone; it works once, until ${employee.linking_code_expires_at.toISOString()}):`,
        enrollmentUrl,
        'Enrolling from this link makes you a person of the organization at once.',
        '',
        `Already signed in with another passkey of the organization? Link it instead with this code: ${linkingCode}`,
      ]
    : [
        'Sign in with your passkey and link your Passport to the organization with this linking code',
        `(POST /v1/passports/{your passport id}/organization-links, with this e-mail address): ${linkingCode}`,
      ];
  return {
    to: employee.email,
    subject: 'You are invited to Handoff',
    text: [`You have been added as ${role} of an organization on Handoff.`, '', ...steps, ''].join('\n'),
  };
}

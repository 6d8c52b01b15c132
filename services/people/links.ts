import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import type { Attestation } from '../../contracts/aggregates/attestation';
import type { Employee } from '../../contracts/aggregates/employee';
import { claimEmployee, findEmployeeByLinkingCode } from '../../db/employees';
import { countAttempt, endLink, insertLink, latestLink, type OrganizationLinkRow } from '../../db/organization-links';
import {
  attemptRefusal,
  decideAttempt,
  VERIFICATION_CODE_TTL_SECONDS,
  VERIFICATION_MAX_ATTEMPTS,
} from '../../domain/people/verification';
import type { ProvenanceActor } from '../../domain/provenance/records';
import { MailUnavailable } from '../../lib/mail/transport';
import {
  LINKED_IDENTITY_TIER,
  MEMBERSHIP_SKILL,
  recordAttestation,
  signAttestation,
} from '../identity/attestations/issue';
import { organizationSigner } from '../identity/attestations/organization-key';
import { actorOf } from '../identity/passports/passports';
import type { Principal } from '../identity/scopes';
import { createCodeHasher, LINKING_CODE_PURPOSE, newVerificationCode } from './codes';
import { ownPassportAct, type PersonalActRefusal } from './own-passport';
import type { PeopleDeps } from './settings';

const VERIFICATION_PURPOSE = 'organization-link';

const passportDeps = (deps: Pick<PeopleDeps, 'db' | 'settings'>) => ({
  db: deps.db,
  settings: deps.settings.passports,
});

/** Thrown to roll back a verification whose employee record another Passport linked meanwhile. */
class LinkedMeanwhile extends Error {}

type Refused<C extends string> = { ok: false; code: C; detail: string };

export type StartLinkOutcome =
  | { ok: true; link: OrganizationLinkRow }
  | PersonalActRefusal
  | Refused<'linking_code_unknown' | 'linking_code_used' | 'linking_code_expired'>
  | Refused<'mail_unavailable' | 'secrets_unavailable'>;

/**
 * The spec's "link Passport to an organization": the linking code names an employee record of the Passport's
 * organization with this e-mail (a code of another organization, or for another address, is unknown); a
 * 6-digit code goes to the address, as an HMAC here, for VERIFICATION_CODE_TTL_SECONDS. Sent before the commit.
 */
export async function startLink(
  deps: PeopleDeps,
  principal: Principal,
  passportId: string,
  request: { linkingCode: string; email: string },
): Promise<StartLinkOutcome> {
  const own = await ownPassportAct(deps.db, principal, passportId);
  if (!own.ok) return own;
  const hasher = createCodeHasher(deps.settings.passports.secretKeys);
  if (!hasher.available)
    return { ok: false, code: 'secrets_unavailable', detail: 'SECRETS_ENCRYPTION_KEY is not configured' };
  const employee = await findEmployeeByLinkingCode(
    deps.db,
    own.passport.organization_id,
    hasher.candidates(LINKING_CODE_PURPOSE, request.linkingCode),
  );
  const email = request.email.toLowerCase();
  if (!employee || employee.email !== email)
    return {
      ok: false,
      code: 'linking_code_unknown',
      detail: 'No invitation of your organization has this linking code and e-mail',
    };
  if (employee.status !== 'invited')
    return { ok: false, code: 'linking_code_used', detail: 'This invitation is linked already' };
  if (employee.linking_code_expires_at.getTime() <= Date.now())
    return {
      ok: false,
      code: 'linking_code_expired',
      detail: 'This linking code has expired: ask for a new invitation',
    };
  // The organization's key must exist before a code is sent, so that a right code always ends in an attestation.
  const signer = await organizationSigner(passportDeps(deps), employee.organization_id);
  if (!signer.ok)
    return { ok: false, code: 'secrets_unavailable', detail: `The organization cannot sign (${signer.code})` };
  const verificationCode = newVerificationCode();
  const now = new Date();
  const link = {
    link_id: `olk_${randomUUID()}`,
    organization_id: employee.organization_id,
    employee_id: employee.employee_id,
    passport_id: passportId,
    email,
    ...codeColumns(hasher.hash(VERIFICATION_PURPOSE, verificationCode)),
    created_at: now,
    expires_at: new Date(now.getTime() + VERIFICATION_CODE_TTL_SECONDS * 1000),
  };
  try {
    await deps.db.transaction(async (trx) => {
      await insertLink(trx, link);
      await deps.mailer.send({
        to: email,
        subject: 'Your verification code',
        text: `Your code to link your Passport to your organization on Handoff is ${verificationCode}.\nIt works once, for ${VERIFICATION_CODE_TTL_SECONDS / 60} minutes.\n`,
      });
    });
  } catch (error) {
    if (error instanceof MailUnavailable) return { ok: false, code: 'mail_unavailable', detail: error.message };
    throw error;
  }
  return { ok: true, link: { ...link, attempts: 0, status: 'pending', ended_at: null, attestation_id: null } };
}

const codeColumns = (code: { hash: string; hmac_key_id: string }) => ({
  code_hash: code.hash,
  hmac_key_id: code.hmac_key_id,
});

export type VerifyLinkOutcome =
  | { ok: true; link: OrganizationLinkRow; attestation: Attestation }
  | PersonalActRefusal
  | Refused<'organization_link_not_found' | 'employee_already_linked' | 'organization_key_unavailable'>
  | Refused<'verification_code_used' | 'verification_code_expired' | 'verification_attempts_exhausted'>
  | (Refused<'verification_code_invalid'> & { attempts_remaining: number });

/**
 * The spec's "verify e-mail and complete the link": the Passport's latest verification takes the code if it is
 * pending, unexpired and has attempts left (each counted, right or wrong, by one conditional write). A right code
 * links the Passport (the employee becomes active), raises its identity tier to 1 and records the organization's
 * trust attestation, all in one transaction; the fifth wrong code ends the verification.
 */
export async function verifyLink(
  deps: PeopleDeps,
  principal: Principal,
  passportId: string,
  verificationCode: string,
): Promise<VerifyLinkOutcome> {
  const own = await ownPassportAct(deps.db, principal, passportId);
  if (!own.ok) return own;
  const link = await latestLink(deps.db, passportId);
  if (!link)
    return { ok: false, code: 'organization_link_not_found', detail: 'No link of this Passport awaits a code' };
  const refusal = attemptRefusal(link, new Date());
  if (refusal) return { ok: false, code: refusal.code, detail: REFUSAL_DETAIL[refusal.code] };
  const hasher = createCodeHasher(deps.settings.passports.secretKeys);
  const matches = hasher.matches(VERIFICATION_PURPOSE, verificationCode, {
    hash: link.code_hash,
    hmac_key_id: link.hmac_key_id,
  });
  // Signed before the transaction that records it, so the row lock is never held across the key's unsealing.
  const signed = matches
    ? await signAttestation(passportDeps(deps), membership(link, own.passport.did, principal))
    : undefined;
  if (signed && !signed.ok) return { ok: false, code: 'organization_key_unavailable', detail: signed.detail };
  try {
    return await recordAttempt(deps, principal, {
      link,
      matches,
      attestation: signed?.ok ? signed.attestation : undefined,
    });
  } catch (error) {
    if (!(error instanceof LinkedMeanwhile)) throw error;
    return {
      ok: false,
      code: 'employee_already_linked',
      detail: 'The invitation was linked to another Passport meanwhile',
    };
  }
}

/** One attempt, counted and decided in one transaction; a right code links in it too. */
async function recordAttempt(
  deps: PeopleDeps,
  principal: Principal,
  attempt: { link: OrganizationLinkRow; matches: boolean; attestation: Attestation | undefined },
): Promise<VerifyLinkOutcome> {
  const { link, matches, attestation } = attempt;
  return deps.db.transaction(async (trx) => {
    const counted = await countAttempt(trx, link.link_id, VERIFICATION_MAX_ATTEMPTS);
    // A concurrent attempt took the last one, or the code expired or was used meanwhile.
    if (!counted) return raced(await latestLink(trx, link.passport_id));
    const decision = decideAttempt(counted, matches);
    if (decision.outcome === 'wrong_code') {
      if (decision.status === 'exhausted') await endLink(trx, link.link_id, { status: 'exhausted', at: new Date() });
      return {
        ok: false,
        code: 'verification_code_invalid',
        detail: `The code is not the one sent; ${decision.attempts_remaining} attempt(s) left`,
        attempts_remaining: decision.attempts_remaining,
      } as const;
    }
    if (!attestation) throw new Error('a matching code comes with its signed attestation');
    if (!(await completeLink(trx, { employee_id: link.employee_id, attestation }, actorOf(principal))))
      throw new LinkedMeanwhile();
    await endLink(trx, link.link_id, { status: 'linked', at: new Date(), attestation_id: attestation.attestation_id });
    return { ok: true, link: { ...counted, status: 'linked' }, attestation } as const;
  });
}

const REFUSAL_DETAIL = {
  verification_code_used: 'This code was used already: the Passport is linked',
  verification_code_expired: 'The code has expired: ask for a new one with the linking code',
  verification_attempts_exhausted: `${VERIFICATION_MAX_ATTEMPTS} wrong codes ended this verification: ask for a new one`,
} as const;

function raced(now: OrganizationLinkRow | undefined): VerifyLinkOutcome {
  const refusal = now ? attemptRefusal(now, new Date()) : undefined;
  const code = refusal?.code ?? 'verification_code_expired';
  return { ok: false, code, detail: REFUSAL_DETAIL[code] };
}

function membership(
  link: Pick<OrganizationLinkRow, 'organization_id' | 'passport_id'>,
  did: string,
  principal: Principal,
) {
  return {
    organization_id: link.organization_id,
    subject: { passport_id: link.passport_id, did },
    skill: MEMBERSHIP_SKILL,
    identity_tier: LINKED_IDENTITY_TIER,
    issued_by: principal.id,
  };
}

/**
 * In the caller's transaction: the employee made active with the Passport (false when the record was linked
 * already), and the organization's membership attestation recorded, which raises the tier.
 */
async function completeLink(
  trx: Knex.Transaction,
  link: { employee_id: string; attestation: Attestation },
  actor: ProvenanceActor,
): Promise<boolean> {
  const { attestation } = link;
  if (!(await claimEmployee(trx, link.employee_id, attestation.passport_id, attestation.timestamp))) return false;
  await recordAttestation(trx, attestation, {
    actor,
    reasoning: `${attestation.subject_did} proved the e-mail of employee ${link.employee_id}; ${attestation.issuer_did} attests the membership`,
  });
  return true;
}

/**
 * After a passkey enrollment: an employee whose onboarding link minted this Passport is linked to it, since
 * the link reached them at their e-mail as the code would have. Nothing to do for any other enrollment.
 */
export async function linkEnrolledEmployee(
  deps: Pick<PeopleDeps, 'db' | 'logger' | 'settings'>,
  employee: Employee,
  person: { passport_id: string; did: string },
): Promise<boolean> {
  const issuedBy = `passport:${person.passport_id}`;
  const signed = await signAttestation(passportDeps(deps), {
    organization_id: employee.organization_id,
    subject: person,
    skill: MEMBERSHIP_SKILL,
    identity_tier: LINKED_IDENTITY_TIER,
    issued_by: issuedBy,
  });
  if (!signed.ok) {
    deps.logger.warn('enrolled employee not linked: the organization cannot sign', {
      employee_id: employee.employee_id,
      code: signed.code,
    });
    return false;
  }
  const actor: ProvenanceActor = { type: 'human', did: person.did, passport_id: person.passport_id };
  return deps.db.transaction((trx) =>
    completeLink(trx, { employee_id: employee.employee_id, attestation: signed.attestation }, actor),
  );
}

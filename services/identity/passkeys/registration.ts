import { randomUUID } from 'node:crypto';
import {
  generateRegistrationOptions,
  type PublicKeyCredentialCreationOptionsJSON,
  type RegistrationResponseJSON,
} from '@simplewebauthn/server';
import {
  activePasskeysOf,
  findEnrolledPerson,
  findPassportIdentity,
  insertIndividualPassport,
  insertPasskey,
  type PasskeyRow,
  type PassportIdentity,
} from '../../../db/webauthn';
import { findReviewerLink, linkUnclaimedReviewer } from '../../../db/reviewers';
import type { Session } from '../issuance/session-tokens';
import {
  issueChallenge,
  signInWithPasskey,
  takeChallenge,
  verifyNewPasskey,
  type CeremonyFailure,
  type SignedIn,
  type WebAuthnDeps,
} from './ceremony';
import { passportDidWeb } from '../../../domain/identity/did';

export interface CreationOptions {
  options: PublicKeyCredentialCreationOptionsJSON;
  passport_id: string;
  expires_at: Date;
}

/** The creation options of a ceremony: a discoverable passkey, user verification required, none of the Passport's existing passkeys again. */
export async function creationOptions(
  deps: { settings: { webauthn: WebAuthnDeps['settings']['webauthn'] } },
  person: { passport_id: string; user_name: string; display_name: string },
  exclude: PasskeyRow[],
): Promise<PublicKeyCredentialCreationOptionsJSON> {
  const { webauthn } = deps.settings;
  return generateRegistrationOptions({
    rpName: webauthn.rpName,
    rpID: webauthn.rpId,
    userName: person.user_name,
    userDisplayName: person.display_name,
    // The user handle is the Passport id: a discoverable passkey hands it back at sign-in.
    userID: new TextEncoder().encode(person.passport_id),
    timeout: webauthn.challengeTtlSeconds * 1000,
    attestationType: 'none',
    excludeCredentials: exclude.map((passkey) => ({ id: passkey.credential_id, transports: passkey.transports })),
    authenticatorSelection: { residentKey: 'required', userVerification: 'required' },
  });
}

/** The passkey page that completes an enrollment: the options ride in the fragment, so the challenge never reaches a log. */
export function enrollmentPageUrl(origin: string, options: PublicKeyCredentialCreationOptionsJSON): string {
  const page = new URL('/passkeys', origin);
  page.hash = `enrollment=${Buffer.from(JSON.stringify(options)).toString('base64url')}`;
  return page.toString();
}

export type StartEnrollmentOutcome =
  | ({ ok: true } & CreationOptions)
  | { ok: false; code: 'user_enrolled'; passport_id: string }
  | { ok: false; code: 'enrollment_reviewer_not_found' | 'reviewer_already_linked'; detail: string };

/** Why an enrollment may not be for this reviewer: none of the organization's, or another Passport signs in as them. */
async function reviewerRefusal(
  deps: WebAuthnDeps,
  organizationId: string,
  reviewerDid: string,
): Promise<Extract<StartEnrollmentOutcome, { detail: string }> | undefined> {
  const reviewer = await findReviewerLink(deps.db, organizationId, reviewerDid);
  if (!reviewer)
    return {
      ok: false,
      code: 'enrollment_reviewer_not_found',
      detail: `No reviewer ${reviewerDid} in your organization`,
    };
  if (reviewer.passport_id !== null)
    return {
      ok: false,
      code: 'reviewer_already_linked',
      detail: `The reviewer ${reviewerDid} is linked to Passport ${reviewer.passport_id} already`,
    };
  return undefined;
}

/**
 * An organization admin enrolls a person: the options their browser completes, unauthenticated, with the
 * single-use challenge. The Passport is minted only when the passkey is registered; an enrollment for a
 * reviewer (reviewer_did: one of the organization's, linked to no Passport) links it to that reviewer then, unless
 * another Passport has come to sign in as them meanwhile.
 */
export async function startEnrollment(
  deps: WebAuthnDeps,
  organizationId: string,
  person: { user_name: string; display_name?: string | undefined; reviewer_did?: string | undefined },
): Promise<StartEnrollmentOutcome> {
  const enrolled = await findEnrolledPerson(deps.db, organizationId, person.user_name);
  if (enrolled) return { ok: false, code: 'user_enrolled', passport_id: enrolled.passport_id };
  const refused = person.reviewer_did ? await reviewerRefusal(deps, organizationId, person.reviewer_did) : undefined;
  if (refused) return refused;
  const passport_id = `pp_${randomUUID()}`;
  const display_name = person.display_name ?? person.user_name;
  const options = await creationOptions(deps, { passport_id, user_name: person.user_name, display_name }, []);
  const challenge = await issueChallenge(deps, {
    challenge: options.challenge,
    ceremony: 'enrollment',
    organization_id: organizationId,
    passport_id,
    user_name: person.user_name,
    display_name,
    rotates_credential_id: null,
    reviewer_did: person.reviewer_did ?? null,
  });
  deps.logger.info('passkey enrollment started', { passport_id, organization_id: organizationId });
  return { ok: true, options, passport_id, expires_at: challenge.expires_at };
}

class PasskeyAlreadyRegistered extends Error {}

export type EnrollmentOutcome =
  | { ok: true; passport: PassportIdentity; passkey: PasskeyRow; signedIn: SignedIn }
  | CeremonyFailure
  | { ok: false; code: 'credential_exists'; detail: string };

/** The browser's answer to an enrollment: the person's individual Passport and first passkey, and a session with it. */
export async function completeEnrollment(
  deps: WebAuthnDeps,
  response: RegistrationResponseJSON,
): Promise<EnrollmentOutcome> {
  const taken = await takeChallenge(deps, response.response.clientDataJSON, { ceremony: 'enrollment' });
  if (!taken.ok) return taken;
  const { challenge } = taken;
  const verified = await verifyNewPasskey(deps.settings.webauthn, response, challenge.challenge);
  if (!verified.ok) return verified;
  const passport_id = challenge.passport_id!;
  const organization_id = challenge.organization_id!;
  let registered: { passport: PassportIdentity; passkey: PasskeyRow };
  try {
    registered = await deps.db.transaction(async (trx) => {
      const passport = await insertIndividualPassport(trx, {
        passport_id,
        did: passportDidWeb(deps.settings.webauthn.publicBaseUrl, passport_id),
        name: challenge.display_name ?? challenge.user_name!,
        organization_id,
        user_name: challenge.user_name!,
      });
      if (challenge.reviewer_did)
        await linkUnclaimedReviewer(trx, organization_id, challenge.reviewer_did, passport_id);
      const passkey = await insertPasskey(trx, { ...verified.passkey, passport_id });
      // Thrown so that the Passport minted for it is rolled back too.
      if (!passkey) throw new PasskeyAlreadyRegistered();
      return { passport, passkey };
    });
  } catch (error) {
    if (error instanceof PasskeyAlreadyRegistered)
      return { ok: false, code: 'credential_exists', detail: 'This passkey is already registered' };
    throw error;
  }
  const signedIn = await signInWithPasskey(deps, registered.passport, registered.passkey.credential_id);
  deps.logger.info('passkey enrolled', {
    passport_id,
    organization_id,
    credential_id: registered.passkey.credential_id,
  });
  return { ok: true, ...registered, signedIn };
}

export type PassportAccess =
  | { ok: true; passport: PassportIdentity }
  | { ok: false; code: 'passport_not_found' | 'passport_inactive'; detail: string };

/** A signed-in person acts on their own Passport only; another's answers as if it did not exist. */
export async function ownPassport(deps: WebAuthnDeps, session: Session, passportId: string): Promise<PassportAccess> {
  const passport = session.passport_id === passportId ? await findPassportIdentity(deps.db, passportId) : undefined;
  if (!passport || passport.organization_id !== session.organization_id)
    return { ok: false, code: 'passport_not_found', detail: `No Passport ${passportId} of the signed-in person` };
  if (passport.status !== 'active')
    return { ok: false, code: 'passport_inactive', detail: `The Passport ${passportId} is ${passport.status}` };
  return { ok: true, passport };
}

/** Options to add one more passkey (another device) to the signed-in person's Passport. */
export async function startAddition(deps: WebAuthnDeps, passport: PassportIdentity): Promise<CreationOptions> {
  const existing = await activePasskeysOf(deps.db, passport.passport_id);
  const options = await creationOptions(
    deps,
    { passport_id: passport.passport_id, user_name: passport.name, display_name: passport.name },
    existing,
  );
  const challenge = await issueChallenge(deps, {
    challenge: options.challenge,
    ceremony: 'addition',
    organization_id: passport.organization_id,
    passport_id: passport.passport_id,
    user_name: passport.name,
    display_name: passport.name,
    rotates_credential_id: null,
  });
  return { options, passport_id: passport.passport_id, expires_at: challenge.expires_at };
}

export type AdditionOutcome =
  { ok: true; passkey: PasskeyRow } | CeremonyFailure | { ok: false; code: 'credential_exists'; detail: string };

export async function completeAddition(
  deps: WebAuthnDeps,
  passport: PassportIdentity,
  response: RegistrationResponseJSON,
): Promise<AdditionOutcome> {
  const taken = await takeChallenge(deps, response.response.clientDataJSON, {
    ceremony: 'addition',
    passport_id: passport.passport_id,
  });
  if (!taken.ok) return taken;
  const verified = await verifyNewPasskey(deps.settings.webauthn, response, taken.challenge.challenge);
  if (!verified.ok) return verified;
  const passkey = await insertPasskey(deps.db, { ...verified.passkey, passport_id: passport.passport_id });
  if (!passkey) return { ok: false, code: 'credential_exists', detail: 'This passkey is already registered' };
  deps.logger.info('passkey added', { passport_id: passport.passport_id, credential_id: passkey.credential_id });
  return { ok: true, passkey };
}

import { startAuthentication, authenticate } from '../../services/identity/passkeys/authentication';
import type { WebAuthnDeps } from '../../services/identity/passkeys/ceremony';
import { enrollmentPageUrl, startEnrollment } from '../../services/identity/passkeys/registration';
import { enrollPerson } from '../../services/people/enrollment';
import type { PeopleDeps } from '../../services/people/settings';
import { Problem } from '../problem';
import type { ApiBuilder } from '../route';
import {
  AuthenticationRequestSchema,
  EnrollmentReplySchema,
  EnrollmentRequestSchema,
  EnrollmentResultSchema,
  passkeyView,
  personPassportView,
  RegistrationRequestSchema,
  RequestOptionsReplySchema,
  SessionSchema,
  sessionView,
} from '../schemas/webauthn';
import { ceremonyProblem, PASSKEY_TAGS, registrationProblem } from './webauthn-ceremony';
import { registerOwnPasskeyRoutes } from './webauthn-own-passkeys';

/** Passkeys: a person enrolled by an admin, signing in, and adding or rotating their own passkeys. */
export function registerWebAuthnRoutes(api: ApiBuilder, deps: WebAuthnDeps, people: PeopleDeps): void {
  registerEnrollment(api, deps);
  registerEnrollmentCompletion(api, people);
  registerSignIn(api, deps);
  registerOwnPasskeyRoutes(api, deps);
}

function registerEnrollment(api: ApiBuilder, deps: WebAuthnDeps): void {
  api.route({
    method: 'post',
    path: '/v1/webauthn/registration/options',
    operationId: 'createPasskeyEnrollment',
    summary: 'Enroll a person: passkey registration options for a userId',
    description:
      'An organization admin enrolls a person of the caller’s organization: it needs people:enroll (platform:admin implies it). Hand enrollment_url ' +
      '(or the options) to the person: their browser completes the registration without a token, with the single-use challenge, before expires_at. ' +
      'The registration mints their individual Passport. With reviewer_did, the enrollment is for that reviewer of the organization: the ' +
      'Passport is linked to it at the registration (unless another Passport has come to sign in as the reviewer meanwhile), so the routings ' +
      'escalated to the reviewer are in the person’s inbox.',
    tags: PASSKEY_TAGS,
    auth: 'people:enroll',
    rateLimit: 'default',
    request: { body: EnrollmentRequestSchema },
    responses: {
      201: { description: 'The enrollment', schema: EnrollmentReplySchema },
      409: {
        description:
          'person_already_enrolled: an active person of the organization has this userId; reviewer_already_linked: a Passport signs in as reviewer_did already',
      },
      422: { description: 'enrollment_reviewer_not_found: reviewer_did names no reviewer of your organization' },
    },
    handler: async ({ body, principal }) => {
      const outcome = await startEnrollment(deps, principal.organization_id, {
        user_name: body.userId,
        display_name: body.displayName,
        reviewer_did: body.reviewer_did,
      });
      if (!outcome.ok && outcome.code !== 'user_enrolled') throw new Problem(outcome.code, outcome.detail);
      if (!outcome.ok)
        throw new Problem(
          'person_already_enrolled',
          `The person ${body.userId} is enrolled as Passport ${outcome.passport_id}`,
          { extensions: { passport_id: outcome.passport_id } },
        );
      return {
        status: 201,
        body: {
          passport_id: outcome.passport_id,
          options: outcome.options,
          expires_at: outcome.expires_at.toISOString(),
          enrollment_url: enrollmentPageUrl(deps.settings.webauthn.origins[0]!, outcome.options),
        },
      };
    },
  });
}

function registerEnrollmentCompletion(api: ApiBuilder, people: PeopleDeps): void {
  api.route({
    method: 'post',
    path: '/v1/webauthn/registration',
    operationId: 'registerPasskey',
    summary: 'Complete an enrollment: register the passkey and mint the person’s Passport',
    description:
      'Unauthenticated: the enrollment’s challenge, signed by the new passkey, is the credential. Answers with a session signed in with the passkey. ' +
      'An enrollment from an employee’s onboarding e-mail also links the new Passport to the employee record (identity tier 1, the ' +
      'organization’s attestation): an administrator’s session then holds the organization’s administration.',
    tags: PASSKEY_TAGS,
    auth: 'public',
    rateLimit: 'default',
    request: { body: RegistrationRequestSchema },
    responses: {
      201: { description: 'The Passport, its passkey, and a session', schema: EnrollmentResultSchema },
      400: {
        description:
          'webauthn_challenge_invalid: the challenge is unknown, used or expired; webauthn_response_invalid: wrong origin or RP, no user verification, a bad attestation',
      },
      409: { description: 'passkey_already_registered' },
    },
    handler: async ({ body }) => {
      const outcome = await enrollPerson(people, body.response);
      if (!outcome.ok) throw registrationProblem(outcome);
      return {
        status: 201,
        body: {
          passport: personPassportView(outcome.passport),
          passkey: passkeyView(outcome.passkey),
          session: sessionView(outcome.signedIn, new Date()),
        },
      };
    },
  });
}

function registerSignIn(api: ApiBuilder, deps: WebAuthnDeps): void {
  api.route({
    method: 'post',
    path: '/v1/webauthn/authentication/options',
    operationId: 'createPasskeySignInOptions',
    summary: 'Passkey sign-in options',
    description:
      'Unauthenticated. A discoverable-passkey challenge with user verification required; it answers once, before expires_at.',
    tags: PASSKEY_TAGS,
    auth: 'public',
    rateLimit: 'default',
    responses: {
      201: { description: 'The options for navigator.credentials.get()', schema: RequestOptionsReplySchema },
    },
    handler: async () => {
      const { options, expires_at } = await startAuthentication(deps);
      return { status: 201, body: { options, expires_at: expires_at.toISOString() } };
    },
  });

  api.route({
    method: 'post',
    path: '/v1/webauthn/authentication',
    operationId: 'signInWithPasskey',
    summary: 'Sign in with a passkey: a session token',
    description:
      'Unauthenticated. Verifies the assertion (challenge, origin, RP, user verification, signature) and the signature counter: a counter that ' +
      'does not grow means the passkey was cloned, and it is revoked at once, with every delegation token exchanged from its sessions. The session ' +
      'is short-lived and valid only while the passkey stays active.',
    tags: PASSKEY_TAGS,
    auth: 'public',
    rateLimit: 'default',
    request: { body: AuthenticationRequestSchema },
    responses: {
      200: { description: 'The session', schema: SessionSchema },
      400: { description: 'webauthn_challenge_invalid: the challenge is unknown, used or expired' },
      401: {
        description:
          'passkey_sign_in_failed: unknown or revoked passkey, a response that does not verify, or a cloned authenticator (reason says which)',
      },
    },
    handler: async ({ body }) => {
      const outcome = await authenticate(deps, body.response);
      if (outcome.ok) return { status: 200, body: sessionView(outcome.signedIn, new Date()) };
      if (
        outcome.code === 'challenge_unknown' ||
        outcome.code === 'challenge_expired' ||
        outcome.code === 'malformed_response'
      )
        throw ceremonyProblem(outcome);
      throw new Problem('passkey_sign_in_failed', outcome.detail, { extensions: { reason: outcome.code } });
    },
  });
}

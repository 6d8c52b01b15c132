import type { Request } from 'express';
import { authenticateSession, type Session } from '../../services/identity/issuance/session-tokens';
import { startAuthentication, authenticate } from '../../services/identity/passkeys/authentication';
import type { CeremonyFailure, WebAuthnDeps } from '../../services/identity/passkeys/ceremony';
import {
  completeAddition,
  completeEnrollment,
  ownPassport,
  startAddition,
  startEnrollment,
} from '../../services/identity/passkeys/registration';
import { completeRotation, startRotation } from '../../services/identity/passkeys/rotation';
import { Problem } from '../problem';
import type { ApiBuilder } from '../route';
import {
  AuthenticationRequestSchema,
  CreationOptionsReplySchema,
  EnrollmentReplySchema,
  EnrollmentRequestSchema,
  EnrollmentResultSchema,
  PasskeySchema,
  passkeyView,
  PassportIdParamsSchema,
  personPassportView,
  RegistrationRequestSchema,
  RequestOptionsReplySchema,
  RotationOptionsReplySchema,
  RotationOptionsRequestSchema,
  RotationRequestSchema,
  RotationResultSchema,
  SessionSchema,
  sessionView,
} from '../schemas/webauthn';

const TAGS = ['Passkeys'];
const SESSION_AUTH = 'Needs the person’s session: `Authorization: Bearer <session_token>` from a passkey sign-in.';

/** A ceremony's failure as its problem: a challenge problem, or a response that did not verify. */
function ceremonyProblem(failure: CeremonyFailure): Problem {
  if (failure.code === 'challenge_unknown' || failure.code === 'challenge_expired')
    return new Problem('webauthn_challenge_invalid', failure.detail, { extensions: { reason: failure.code } });
  return new Problem('webauthn_response_invalid', failure.detail);
}

/** The session a passkey-management call carries; anything else is a 401. */
async function requireSession(deps: WebAuthnDeps, req: Request): Promise<Session> {
  const match = /^Bearer\s+(\S+)$/i.exec(req.get('authorization') ?? '');
  const fail = (reason: string): never => {
    throw new Problem('unauthorized', reason, {
      headers: { 'WWW-Authenticate': 'Bearer realm="handoff", error="invalid_token"' },
    });
  };
  if (!match?.[1]) return fail('A session token is required: Authorization: Bearer <session_token>');
  const verified = await authenticateSession(
    { db: deps.db, keyRing: deps.keyRing, settings: deps.settings.token },
    match[1],
  );
  if (!verified.ok) return fail(verified.reason);
  return verified.session;
}

async function signedInOwner(deps: WebAuthnDeps, req: Request, passportId: string) {
  const session = await requireSession(deps, req);
  const access = await ownPassport(deps, session, passportId);
  if (!access.ok)
    throw access.code === 'passport_not_found'
      ? new Problem('not_found', access.detail)
      : new Problem('unauthorized', access.detail);
  return { session, passport: access.passport };
}

const sessionResponses = {
  401: {
    description: 'unauthorized: no session token, or one that is expired, forged, or whose passkey is no longer active',
  },
  404: { description: 'not_found: the Passport is not the signed-in person’s' },
};

/** Passkeys: a person enrolled by an admin, signing in, and adding or rotating their own passkeys. */
export function registerWebAuthnRoutes(api: ApiBuilder, deps: WebAuthnDeps): void {
  registerEnrollment(api, deps);
  registerSignIn(api, deps);
  registerAddition(api, deps);
  registerRotation(api, deps);
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
      'The registration mints their individual Passport.',
    tags: TAGS,
    auth: 'people:enroll',
    rateLimit: 'default',
    request: { body: EnrollmentRequestSchema },
    responses: {
      201: { description: 'The enrollment', schema: EnrollmentReplySchema },
      409: { description: 'person_already_enrolled: an active person of the organization has this userId' },
    },
    handler: async ({ body, principal }) => {
      const outcome = await startEnrollment(deps, principal.organization_id, {
        user_name: body.userId,
        display_name: body.displayName,
      });
      if (!outcome.ok)
        throw new Problem(
          'person_already_enrolled',
          `The person ${body.userId} is enrolled as Passport ${outcome.passport_id}`,
          { extensions: { passport_id: outcome.passport_id } },
        );
      const page = new URL('/passkeys', deps.settings.webauthn.origins[0]);
      page.hash = `enrollment=${Buffer.from(JSON.stringify(outcome.options)).toString('base64url')}`;
      return {
        status: 201,
        body: {
          passport_id: outcome.passport_id,
          options: outcome.options,
          expires_at: outcome.expires_at.toISOString(),
          enrollment_url: page.toString(),
        },
      };
    },
  });

  api.route({
    method: 'post',
    path: '/v1/webauthn/registration',
    operationId: 'registerPasskey',
    summary: 'Complete an enrollment: register the passkey and mint the person’s Passport',
    description:
      'Unauthenticated: the enrollment’s challenge, signed by the new passkey, is the credential. Answers with a session signed in with the passkey.',
    tags: TAGS,
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
      const outcome = await completeEnrollment(deps, body.response);
      if (!outcome.ok)
        throw outcome.code === 'credential_exists'
          ? new Problem('passkey_already_registered', outcome.detail)
          : ceremonyProblem(outcome);
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
    tags: TAGS,
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
    tags: TAGS,
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

function registerAddition(api: ApiBuilder, deps: WebAuthnDeps): void {
  api.route({
    method: 'post',
    path: '/v1/passports/{passport_id}/webauthn/credentials/options',
    operationId: 'createPasskeyAdditionOptions',
    summary: 'Options to add a passkey to one’s own Passport',
    description: `Another device’s passkey for the signed-in person. ${SESSION_AUTH}`,
    tags: TAGS,
    auth: 'public',
    rateLimit: 'default',
    request: { params: PassportIdParamsSchema },
    responses: {
      201: { description: 'The options for navigator.credentials.create()', schema: CreationOptionsReplySchema },
      ...sessionResponses,
    },
    handler: async ({ req, params }) => {
      const { passport } = await signedInOwner(deps, req, params.passport_id);
      const created = await startAddition(deps, passport);
      return {
        status: 201,
        body: {
          passport_id: created.passport_id,
          options: created.options,
          expires_at: created.expires_at.toISOString(),
        },
      };
    },
  });

  api.route({
    method: 'post',
    path: '/v1/passports/{passport_id}/webauthn/credentials',
    operationId: 'addPasskey',
    summary: 'Add a passkey to one’s own Passport',
    description: SESSION_AUTH,
    tags: TAGS,
    auth: 'public',
    rateLimit: 'default',
    request: { params: PassportIdParamsSchema, body: RegistrationRequestSchema },
    responses: {
      201: { description: 'The new passkey', schema: PasskeySchema },
      400: { description: 'webauthn_challenge_invalid, or webauthn_response_invalid' },
      409: { description: 'passkey_already_registered' },
      ...sessionResponses,
    },
    handler: async ({ req, params, body }) => {
      const { passport } = await signedInOwner(deps, req, params.passport_id);
      const outcome = await completeAddition(deps, passport, body.response);
      if (!outcome.ok)
        throw outcome.code === 'credential_exists'
          ? new Problem('passkey_already_registered', outcome.detail)
          : ceremonyProblem(outcome);
      return { status: 201, body: passkeyView(outcome.passkey) };
    },
  });
}

function registerRotation(api: ApiBuilder, deps: WebAuthnDeps): void {
  api.route({
    method: 'post',
    path: '/v1/passports/{passport_id}/webauthn/rotate/options',
    operationId: 'createPasskeyRotationOptions',
    summary: 'Options for a passkey that replaces one of one’s own',
    description: `The passkey named in credentialId, or the one this session was signed in with, is replaced when the new one is registered. ${SESSION_AUTH}`,
    tags: TAGS,
    auth: 'public',
    rateLimit: 'default',
    request: { params: PassportIdParamsSchema, body: RotationOptionsRequestSchema },
    responses: {
      201: { description: 'The options for navigator.credentials.create()', schema: RotationOptionsReplySchema },
      409: { description: 'passkey_not_rotatable: not an active passkey of this Passport' },
      ...sessionResponses,
    },
    handler: async ({ req, params, body }) => {
      const { session, passport } = await signedInOwner(deps, req, params.passport_id);
      const outcome = await startRotation(deps, session, passport, body.credentialId);
      if (!outcome.ok) throw new Problem('passkey_not_rotatable', outcome.detail);
      return {
        status: 201,
        body: {
          passport_id: outcome.passport_id,
          options: outcome.options,
          expires_at: outcome.expires_at.toISOString(),
          rotates_credential_id: outcome.rotates_credential_id,
        },
      };
    },
  });

  api.route({
    method: 'post',
    path: '/v1/passports/{passport_id}/webauthn/rotate',
    operationId: 'rotatePasskey',
    summary: 'Rotate a WebAuthn credential: the new passkey replaces the old',
    description:
      'The old passkey is revoked at once, in the same transaction that registers the new one: every session signed in with it stops working, ' +
      'and so does every delegation token exchanged from such a session. ' +
      `Answers with a session signed in with the new passkey. ${SESSION_AUTH}`,
    tags: TAGS,
    auth: 'public',
    rateLimit: 'default',
    request: { params: PassportIdParamsSchema, body: RotationRequestSchema },
    responses: {
      200: { description: 'The new passkey and a session with it', schema: RotationResultSchema },
      400: { description: 'webauthn_challenge_invalid, or webauthn_response_invalid' },
      409: { description: 'passkey_already_registered, or passkey_not_rotatable: the old passkey is no longer active' },
      ...sessionResponses,
    },
    handler: async ({ req, params, body }) => {
      const { passport } = await signedInOwner(deps, req, params.passport_id);
      const outcome = await completeRotation(deps, passport, body);
      if (outcome.ok)
        return {
          status: 200,
          body: {
            passkey: passkeyView(outcome.passkey),
            revoked_credential_id: outcome.revoked_credential_id,
            session: sessionView(outcome.signedIn, new Date()),
          },
        };
      if (outcome.code === 'credential_exists') throw new Problem('passkey_already_registered', outcome.detail);
      if (outcome.code === 'passkey_not_rotatable') throw new Problem('passkey_not_rotatable', outcome.detail);
      throw ceremonyProblem(outcome);
    },
  });
}

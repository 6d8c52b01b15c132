import type { Request } from 'express';
import type { PassportIdentity } from '../../db/webauthn';
import type { ZodType } from 'zod';
import { authenticateSession, type Session } from '../../services/identity/issuance/session-tokens';
import type { WebAuthnDeps } from '../../services/identity/passkeys/ceremony';
import { completeAddition, ownPassport, startAddition } from '../../services/identity/passkeys/registration';
import { completeRotation, startRotation } from '../../services/identity/passkeys/rotation';
import { Problem } from '../problem';
import type { ApiBuilder, Infer, Reply, ResponseSpec } from '../route';
import {
  CreationOptionsReplySchema,
  PasskeySchema,
  passkeyView,
  PassportIdParamsSchema,
  RegistrationRequestSchema,
  RotationOptionsReplySchema,
  RotationOptionsRequestSchema,
  RotationRequestSchema,
  RotationResultSchema,
  sessionView,
} from '../schemas/webauthn';
import { PASSKEY_TAGS, registrationProblem } from './webauthn-ceremony';

const SESSION_AUTH = 'Needs the person’s session: `Authorization: Bearer <session_token>` from a passkey sign-in.';

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

/** A POST on the signed-in person's own Passport: public, authenticated by the session it carries. */
interface OwnPasskeyRoute<B extends ZodType | undefined> {
  path: string;
  operationId: string;
  summary: string;
  /** What the route does; the description adds how it is authenticated. */
  about?: string;
  body?: B;
  /** The answers beside the session's 401 and 404. */
  responses: Record<number, ResponseSpec>;
  handler: (ctx: { session: Session; passport: PassportIdentity; body: Infer<B> }) => Promise<Reply>;
}

function ownPasskeyRoute<B extends ZodType | undefined = undefined>(
  api: ApiBuilder,
  deps: WebAuthnDeps,
  spec: OwnPasskeyRoute<B>,
): void {
  api.route({
    method: 'post',
    path: spec.path,
    operationId: spec.operationId,
    summary: spec.summary,
    description: spec.about ? `${spec.about} ${SESSION_AUTH}` : SESSION_AUTH,
    tags: PASSKEY_TAGS,
    auth: 'public',
    rateLimit: 'default',
    request: { params: PassportIdParamsSchema, body: spec.body },
    responses: { ...spec.responses, ...sessionResponses },
    handler: async ({ req, params, body }) =>
      spec.handler({ ...(await signedInOwner(deps, req, params.passport_id)), body }),
  });
}

/** A signed-in person's own passkeys: adding another device's, and rotating one (options, then the new passkey). */
export function registerOwnPasskeyRoutes(api: ApiBuilder, deps: WebAuthnDeps): void {
  registerAddition(api, deps);
  registerRotation(api, deps);
}

function registerAddition(api: ApiBuilder, deps: WebAuthnDeps): void {
  ownPasskeyRoute(api, deps, {
    path: '/v1/passports/{passport_id}/webauthn/credentials/options',
    operationId: 'createPasskeyAdditionOptions',
    summary: 'Options to add a passkey to one’s own Passport',
    about: 'Another device’s passkey for the signed-in person.',
    responses: {
      201: { description: 'The options for navigator.credentials.create()', schema: CreationOptionsReplySchema },
    },
    handler: async ({ passport }) => {
      const { passport_id, options, expires_at } = await startAddition(deps, passport);
      return { status: 201, body: { passport_id, options, expires_at: expires_at.toISOString() } };
    },
  });

  ownPasskeyRoute(api, deps, {
    path: '/v1/passports/{passport_id}/webauthn/credentials',
    operationId: 'addPasskey',
    summary: 'Add a passkey to one’s own Passport',
    body: RegistrationRequestSchema,
    responses: {
      201: { description: 'The new passkey', schema: PasskeySchema },
      400: { description: 'webauthn_challenge_invalid, or webauthn_response_invalid' },
      409: { description: 'passkey_already_registered' },
    },
    handler: async ({ passport, body }) => {
      const outcome = await completeAddition(deps, passport, body.response);
      if (!outcome.ok) throw registrationProblem(outcome);
      return { status: 201, body: passkeyView(outcome.passkey) };
    },
  });
}

function registerRotation(api: ApiBuilder, deps: WebAuthnDeps): void {
  ownPasskeyRoute(api, deps, {
    path: '/v1/passports/{passport_id}/webauthn/rotate/options',
    operationId: 'createPasskeyRotationOptions',
    summary: 'Options for a passkey that replaces one of one’s own',
    about:
      'The passkey named in credentialId, or the one this session was signed in with, is replaced when the new one is registered.',
    body: RotationOptionsRequestSchema,
    responses: {
      201: { description: 'The options for navigator.credentials.create()', schema: RotationOptionsReplySchema },
      409: { description: 'passkey_not_rotatable: not an active passkey of this Passport' },
    },
    handler: async ({ session, passport, body }) => {
      const outcome = await startRotation(deps, session, passport, body.credentialId);
      if (!outcome.ok) throw new Problem('passkey_not_rotatable', outcome.detail);
      const { passport_id, options, expires_at, rotates_credential_id } = outcome;
      return {
        status: 201,
        body: { passport_id, options, expires_at: expires_at.toISOString(), rotates_credential_id },
      };
    },
  });

  ownPasskeyRoute(api, deps, {
    path: '/v1/passports/{passport_id}/webauthn/rotate',
    operationId: 'rotatePasskey',
    summary: 'Rotate a WebAuthn credential: the new passkey replaces the old',
    about:
      'The old passkey is revoked at once, in the same transaction that registers the new one: every session signed in with it stops working, ' +
      'and so does every delegation token exchanged from such a session. Answers with a session signed in with the new passkey.',
    body: RotationRequestSchema,
    responses: {
      200: { description: 'The new passkey and a session with it', schema: RotationResultSchema },
      400: { description: 'webauthn_challenge_invalid, or webauthn_response_invalid' },
      409: { description: 'passkey_already_registered, or passkey_not_rotatable: the old passkey is no longer active' },
    },
    handler: async ({ passport, body }) => {
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
      if (outcome.code === 'passkey_not_rotatable') throw new Problem('passkey_not_rotatable', outcome.detail);
      throw registrationProblem(outcome);
    },
  });
}

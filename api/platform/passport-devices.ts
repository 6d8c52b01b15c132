import {
  createRegistrationChallenge,
  createSignInChallenge,
  signInWithDevice,
  type CeremonyRefusal,
  type DeviceCeremonyDeps,
} from '../../services/identity/passports/devices';
import { registerDevice } from '../../services/identity/passports/device-registration';
import { requestIdOf } from '../middleware/request-id';
import { Problem } from '../problem';
import type { ApiBuilder } from '../route';
import { createdEnvelope, PassportCreatedSchema, PassportIdParamsSchema } from '../schemas/passports';
import {
  ChallengeSchema,
  DeviceRegistrationSchema,
  RegistrationChallengeRequestSchema,
  SessionSchema,
  SignInSchema,
} from '../schemas/passport-devices';

function ceremonyProblem(refusal: CeremonyRefusal): Problem {
  if (refusal.code === 'invalid')
    return new Problem('validation_failed', 'The device registration cannot be accepted as given', {
      errors: refusal.errors,
    });
  return new Problem(refusal.code, refusal.detail);
}

const CEREMONY_REFUSALS = {
  401: {
    description:
      'device_proof_invalid, challenge_unknown, challenge_used (replayed), challenge_expired, or device_key_revoked',
  },
};

/** A person's device ceremony: an admin's invitation, the device's registration, then signing in with the device key. */
export function registerPassportDeviceRoutes(api: ApiBuilder, ceremony: DeviceCeremonyDeps): void {
  registerRegistrationChallenge(api, ceremony);
  registerDevicePassport(api, ceremony);
  registerSignInChallenge(api, ceremony);
  registerDeviceSession(api, ceremony);
}

function registerRegistrationChallenge(api: ApiBuilder, ceremony: DeviceCeremonyDeps): void {
  api.route({
    method: 'post',
    path: '/v1/passports/device-challenges',
    operationId: 'createDeviceRegistrationChallenge',
    summary: 'Invite a person: a challenge their device signs to mint their Passport (organization admin)',
    description:
      'The first step of the device ceremony. The Passport will belong to the caller’s organization, with the name given here. Hand the ' +
      'challenge to the person’s device: it makes an Ed25519 key pair, keeps the private key, and answers with POST /v1/passports/devices ' +
      'before expiresAt (PASSPORT_CHALLENGE_TTL_SECONDS). Single-use. Enrolling a person is the organization administrator’s: it needs ' +
      'people:enroll (platform:admin implies it). platform:write, which creates agent Passports, does not suffice, since whoever holds the ' +
      'challenge chooses the key that signs in as the person.',
    tags: ['Passports'],
    auth: 'people:enroll',
    rateLimit: 'default',
    idempotency: false,
    request: { body: RegistrationChallengeRequestSchema },
    responses: {
      201: { description: 'The challenge', schema: ChallengeSchema },
      403: {
        description:
          'insufficient_scope: enrolling a person needs people:enroll or platform:admin (a delegation token: the capability people:enroll)',
      },
    },
    handler: async ({ res, body, principal }) => {
      const { challenge, expires_at } = await createRegistrationChallenge(ceremony, principal, {
        name: body.name,
        metadata: body.metadata ?? {},
        capabilities: body.capabilities ?? [],
      });
      res.set('Cache-Control', 'no-store');
      return {
        status: 201,
        body: {
          challenge,
          purpose: 'registration' as const,
          expiresAt: expires_at.toISOString(),
          organizationId: principal.organization_id,
        },
      };
    },
  });
}

function registerDevicePassport(api: ApiBuilder, ceremony: DeviceCeremonyDeps): void {
  api.route({
    method: 'post',
    path: '/v1/passports/devices',
    operationId: 'registerDevicePassport',
    summary: 'Register Passport for a device: mint a person’s Passport from the device’s proof',
    description:
      'proof: a JWT (header alg EdDSA, typ device-proof+jwt) signed by the device’s key, with claims challenge (from POST ' +
      '/v1/passports/device-challenges) and deviceId. publicKey: the key’s public JWK, or its did:key. The service keeps only the public key ' +
      '(passport_keys, source device). No bearer token: the single-use challenge is the invitation. 201 with the Passport envelope.',
    tags: ['Passports'],
    auth: 'public',
    rateLimit: 'default',
    request: { body: DeviceRegistrationSchema },
    responses: {
      201: {
        description: 'The person’s Passport',
        schema: PassportCreatedSchema,
        headers: { Location: { description: 'The Passport' } },
      },
      ...CEREMONY_REFUSALS,
      409: { description: 'device_key_exists: this key is registered already' },
    },
    handler: async ({ res, body }) => {
      const outcome = await registerDevice(ceremony, body);
      if (!outcome.ok)
        throw outcome.code === 'device_key_exists'
          ? new Problem('device_key_exists', outcome.detail)
          : ceremonyProblem(outcome);
      const location = `/v1/passports/${outcome.passport.passport.passport_id}`;
      return {
        status: 201,
        body: createdEnvelope(outcome.passport, requestIdOf(res), new Date()),
        headers: { Location: location },
      };
    },
  });
}

function registerSignInChallenge(api: ApiBuilder, ceremony: DeviceCeremonyDeps): void {
  api.route({
    method: 'post',
    path: '/v1/passports/{passport_id}/sign-in-challenges',
    operationId: 'createDeviceSignInChallenge',
    summary: 'A challenge for a person’s device to sign in with',
    description:
      'Public. Sign it with an active device key of the Passport and send it to POST /v1/passports/{passport_id}/sessions before expiresAt. Single-use.',
    tags: ['Passports'],
    auth: 'public',
    rateLimit: 'default',
    request: { params: PassportIdParamsSchema },
    responses: {
      201: { description: 'The challenge', schema: ChallengeSchema },
      404: { description: 'passport_not_found: no person’s Passport with this id' },
    },
    handler: async ({ res, params }) => {
      const outcome = await createSignInChallenge(ceremony, params.passport_id);
      if (!outcome.ok) throw new Problem('passport_not_found', `No person’s Passport ${params.passport_id}`);
      res.set('Cache-Control', 'no-store');
      return {
        status: 201,
        body: {
          challenge: outcome.challenge,
          purpose: 'sign_in' as const,
          expiresAt: outcome.expires_at.toISOString(),
          organizationId: outcome.organization_id,
          passportId: params.passport_id,
        },
      };
    },
  });
}

function registerDeviceSession(api: ApiBuilder, ceremony: DeviceCeremonyDeps): void {
  api.route({
    method: 'post',
    path: '/v1/passports/{passport_id}/sessions',
    operationId: 'signInWithDeviceKey',
    summary: 'Sign a person in with a device key: a session token',
    description:
      'proof: a JWT (alg EdDSA, typ device-proof+jwt, kid = the device key’s thumbprint) with the claim challenge from ' +
      'POST /v1/passports/{passport_id}/sign-in-challenges. Answers a session token (typ session+jwt, SESSION_TTL_SECONDS) bound to ' +
      'that key: revoking the key ends the session. A replayed or expired challenge, a wrong signature and a revoked key are 401.',
    tags: ['Passports'],
    auth: 'public',
    rateLimit: 'default',
    request: { params: PassportIdParamsSchema, body: SignInSchema },
    responses: {
      201: { description: 'The session', schema: SessionSchema },
      ...CEREMONY_REFUSALS,
      404: { description: 'passport_not_found: no person’s Passport with this id' },
    },
    handler: async ({ res, params, body }) => {
      const outcome = await signInWithDevice(ceremony, params.passport_id, body.proof);
      if (!outcome.ok)
        throw outcome.code === 'passport_not_found'
          ? new Problem('passport_not_found', `No person’s Passport ${params.passport_id}`)
          : ceremonyProblem(outcome);
      res.set('Cache-Control', 'no-store');
      const { session } = outcome;
      const credential = { type: 'device_key' as const, id: session.credential.id };
      return {
        status: 201,
        body: {
          sessionToken: outcome.token,
          tokenType: 'session' as const,
          expiresAt: session.expires_at.toISOString(),
          passportId: session.passport_id,
          did: session.did,
          credential,
        },
      };
    },
  });
}

import {
  createRegistrationChallenge,
  createSignInChallenge,
  signInWithDevice,
  type CeremonyRefusal,
  type DeviceCeremonyDeps,
} from '../../services/identity/passports/devices';
import { registerDevice } from '../../services/identity/passports/device-registration';
import { revokePassportKeyOf, rotatePassportKeys } from '../../services/identity/passports/key-changes';
import type { OrganizationAdminRefusal, PassportServiceDeps } from '../../services/identity/passports/passports';
import type { RevocationRegistry } from '../../services/identity/delegations/revocations';
import { requestIdOf } from '../middleware/request-id';
import { Problem } from '../problem';
import type { ApiBuilder } from '../route';
import {
  createdEnvelope,
  KeysRotatedSchema,
  keyView,
  PassportCreatedSchema,
  PassportIdParamsSchema,
  PassportKeyParamsSchema,
  RevokedKeySchema,
  RevokeKeySchema,
  RotateKeysSchema,
} from '../schemas/passports';
import {
  ChallengeSchema,
  DeviceRegistrationSchema,
  RegistrationChallengeRequestSchema,
  SessionSchema,
  SignInSchema,
} from '../schemas/passport-devices';

type KeyServiceDeps = PassportServiceDeps & { revocations: RevocationRegistry };

/** The refusal of a caller without platform:admin to change the organization Passport, as its problem. */
export function organizationAdminProblem(refusal: OrganizationAdminRefusal, detail: string): Problem {
  return new Problem(refusal.code, detail, { extensions: { required_scope: refusal.required_scope } });
}

const KEYS_NEED_ADMIN = 'The organization Passport’s keys need the scope platform:admin';

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

/** A Passport's server keys (rotate, revoke) and a person's device ceremony (invite, register, sign in). */
export function registerPassportKeyRoutes(
  api: ApiBuilder,
  services: KeyServiceDeps,
  ceremony: DeviceCeremonyDeps,
): void {
  registerRotateKeys(api, services);
  registerRevokeKey(api, services);
  registerRegistrationChallenge(api, ceremony);
  registerDevicePassport(api, ceremony);
  registerSignInChallenge(api, ceremony);
  registerDeviceSession(api, ceremony);
}

function registerRotateKeys(api: ApiBuilder, services: KeyServiceDeps): void {
  api.route({
    method: 'post',
    path: '/v1/passports/{passport_id}/keys/rotate',
    operationId: 'rotatePassportKeys',
    summary: 'Rotate an agent’s or the organization’s key',
    description:
      'A new key signs from now on; the old one is retired: it stays in the DID document and the JWKS, verifying what it signed, until ' +
      'verifyUntil (PASSPORT_KEY_VERIFY_WINDOW_SECONDS, the longest a Passport signature lives), and signs nothing more. A person’s keys live on ' +
      'their devices (409 passport_keys_on_device). The organization Passport needs platform:admin.',
    tags: ['Passports'],
    auth: 'platform:write',
    rateLimit: 'default',
    request: { params: PassportIdParamsSchema, body: RotateKeysSchema },
    responses: {
      200: { description: 'The new key, and the keys it retired', schema: KeysRotatedSchema },
      403: { description: 'insufficient_scope: the organization Passport needs platform:admin' },
      404: { description: 'passport_not_found: no such Passport in the caller’s organization' },
      409: { description: 'passport_keys_on_device: a person’s Passport' },
      503: { description: 'secrets_unavailable' },
    },
    handler: async ({ params, principal }) => {
      const outcome = await rotatePassportKeys(services, principal, params.passport_id);
      if (!outcome.ok) {
        if (outcome.code === 'insufficient_scope') throw organizationAdminProblem(outcome, KEYS_NEED_ADMIN);
        const details = {
          passport_not_found: `No Passport ${params.passport_id}`,
          passport_keys_on_device:
            'A person’s keys are made and kept on their devices: register a new device key, and revoke the old one',
          secrets_unavailable: 'No key can be sealed: SECRETS_ENCRYPTION_KEY is not configured',
        };
        throw new Problem(outcome.code, details[outcome.code]);
      }
      return {
        status: 200,
        body: {
          passportId: params.passport_id,
          did: outcome.passport.passport.did,
          key: keyView(outcome.key),
          retired: outcome.retired.map(keyView),
        },
      };
    },
  });
}

function registerRevokeKey(api: ApiBuilder, services: KeyServiceDeps): void {
  api.route({
    method: 'post',
    path: '/v1/passports/{passport_id}/keys/{kid}/revoke',
    operationId: 'revokePassportKey',
    summary: 'Revoke a key of a Passport',
    description:
      'Immediately unusable: the key signs nothing more, what it signed no longer verifies, it leaves the DID document and the JWKS, and a session ' +
      'signed in with it (a device key) ends, with every delegation token exchanged from such a session (and every delegation below it), in the ' +
      'same transaction: refused at once by this instance and within a second by the others. An agent or organization whose active key is revoked signs again after a rotation. The organization ' +
      'Passport needs platform:admin.',
    tags: ['Passports'],
    auth: 'platform:write',
    rateLimit: 'default',
    request: { params: PassportKeyParamsSchema, body: RevokeKeySchema },
    responses: {
      200: { description: 'The revoked key', schema: RevokedKeySchema },
      403: { description: 'insufficient_scope: the organization Passport needs platform:admin' },
      404: { description: 'passport_not_found, or passport_key_not_found' },
      409: { description: 'passport_key_already_revoked' },
    },
    handler: async ({ params, body, principal }) => {
      const outcome = await revokePassportKeyOf(services, principal, params.passport_id, params.kid, body.reason);
      if (!outcome.ok) {
        if (outcome.code === 'insufficient_scope') throw organizationAdminProblem(outcome, KEYS_NEED_ADMIN);
        const details = {
          passport_not_found: `No Passport ${params.passport_id}`,
          passport_key_not_found: `The Passport has no key ${params.kid}`,
          passport_key_already_revoked: `The key ${params.kid} is revoked already`,
        };
        throw new Problem(outcome.code, details[outcome.code]);
      }
      return { status: 200, body: { passportId: params.passport_id, key: keyView(outcome.key) } };
    },
  });
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

import type { Knex } from 'knex';
import type { PassportKeyRow } from '../../db/passports';
import { DID_DOCUMENT_MEDIA_TYPE, didDocument, didKeyOfJwk, ed25519PublicKeyPem, specDidDocument } from '../../domain/did';
import type { KeyRing } from '../../services/auth/key-ring';
import type { RevocationRegistry } from '../../services/delegation/revocations';
import { grants, type TokenSettings } from '../../services/auth/tokens';
import { createRegistrationChallenge, createSignInChallenge, registerDevice, signInWithDevice, type CeremonyRefusal } from '../../services/passports/devices';
import { publishedKey, verifyingKeys } from '../../services/passports/keys';
import { createServerPassport, readPassport, revokePassportKeyOf, rotatePassportKeys, type PassportWithKeys } from '../../services/passports/passports';
import type { PassportSettings } from '../../services/passports/settings';
import { requestIdOf } from '../middleware/request-id';
import { resourceId } from '../../lib/ids';
import { Problem } from '../problem';
import type { ApiBuilder } from '../route';
import {
  ChallengeSchema,
  CreatePassportSchema,
  DeviceRegistrationSchema,
  DidDocumentSchema,
  KeysRotatedSchema,
  PassportCreatedSchema,
  PassportIdParamsSchema,
  PassportJwksSchema,
  PassportKeyParamsSchema,
  PassportSchema,
  RegistrationChallengeRequestSchema,
  RevokedKeySchema,
  RevokeKeySchema,
  RotateKeysSchema,
  SessionSchema,
  SignInSchema,
  SpecDidDocumentSchema,
} from '../schemas/passports';

export interface PassportRouteDeps {
  db: Knex;
  keyRing: KeyRing;
  token: TokenSettings;
  settings: PassportSettings;
  revocations: RevocationRegistry;
}

const iso = (date: Date | null) => (date ? date.toISOString() : null);

function keyView(row: PassportKeyRow) {
  return {
    kid: row.kid,
    status: row.status,
    source: row.source,
    deviceId: row.device_id,
    publicKeyJwk: row.public_jwk,
    didKey: didKeyOfJwk(publishedKey(row).jwk),
    createdAt: row.created_at.toISOString(),
    retiredAt: iso(row.retired_at),
    verifyUntil: iso(row.verify_until),
    revokedAt: iso(row.revoked_at),
    revokeReason: row.revoke_reason,
  };
}

function passportView({ passport, keys }: PassportWithKeys) {
  return {
    id: passport.passport_id,
    owner: passport.type === 'individual' ? passport.did : passport.org_did,
    capabilities: passport.capabilities,
    createdAt: passport.created_at.toISOString(),
    did: passport.did,
    type: passport.type,
    name: passport.name,
    status: passport.status,
    organizationId: passport.organization_id,
    metadata: passport.metadata,
    keys: keys.map(keyView),
  };
}

/** The spec's creation envelope: the Passport and the key it signs with now. */
function createdEnvelope({ passport, keys }: PassportWithKeys, requestId: string) {
  const key = keys.find((row) => row.status === 'active') ?? keys[keys.length - 1]!;
  const { jwk } = publishedKey(key);
  return {
    data: {
      passportId: passport.passport_id,
      did: passport.did,
      type: passport.type,
      name: passport.name,
      publicKey: ed25519PublicKeyPem(jwk),
      publicKeyJwk: key.public_jwk,
      didKey: didKeyOfJwk(jwk),
      createdAt: passport.created_at.toISOString(),
    },
    meta: { timestamp: new Date().toISOString(), requestId },
  };
}

function ceremonyProblem(refusal: CeremonyRefusal): Problem {
  if (refusal.code === 'invalid') return new Problem('validation_failed', 'The device registration cannot be accepted as given', { errors: refusal.errors });
  return new Problem(refusal.code, refusal.detail);
}

const NOT_FOUND = { 404: { description: 'passport_not_found: no such Passport in the caller’s organization' } };
const CEREMONY_REFUSALS = {
  401: { description: 'device_proof_invalid, challenge_unknown, challenge_used (replayed), challenge_expired, or device_key_revoked' },
};

export function registerPassportRoutes(api: ApiBuilder, deps: PassportRouteDeps): void {
  const services = { db: deps.db, settings: deps.settings, revocations: deps.revocations };
  const ceremony = { db: deps.db, keyRing: deps.keyRing, token: deps.token, settings: deps.settings };

  const publishedKeysOf = async (passportId: string, organizationId?: string) => {
    const found = await readPassport(deps.db, passportId, organizationId);
    if (!found) throw new Problem('passport_not_found', `No Passport ${passportId}`);
    return { passport: found.passport, keys: verifyingKeys(found.keys, new Date()).map(publishedKey) };
  };

  api.route({
    method: 'post',
    path: '/v1/passports',
    operationId: 'createPassport',
    summary: 'Create an agent’s or the organization’s Passport',
    description:
      'Generates the DID (did:web under PUBLIC_BASE_URL) and an Ed25519 key pair whose private key is sealed at rest, and records the creation in ' +
      'the provenance ledger. The Passport belongs to the caller’s organization. type organization is the organization’s own identity: one per ' +
      'organization, and it needs platform:admin. type individual is refused: a person’s key is made and kept on their device, so their Passport ' +
      'is minted by the device ceremony (POST /v1/passports/device-challenges, then POST /v1/passports/devices) or a passkey.',
    tags: ['Passports'],
    auth: 'platform:write',
    rateLimit: 'default',
    request: { body: CreatePassportSchema },
    responses: {
      201: { description: 'The Passport', schema: PassportCreatedSchema, headers: { Location: { description: 'The Passport' } } },
      400: { description: 'invalid_request: type individual (use the device ceremony)' },
      403: { description: 'insufficient_scope: type organization needs platform:admin' },
      409: { description: 'organization_passport_exists: the organization has its Passport (passport_id names it)' },
      503: { description: 'secrets_unavailable: SECRETS_ENCRYPTION_KEY is not configured, so no private key can be sealed' },
    },
    handler: async ({ req, res, body, principal }) => {
      if (body.type === 'individual') {
        throw new Problem('invalid_request', 'A person’s Passport is minted on their device, which makes and keeps the key: use the device ceremony or a passkey', {
          extensions: { ceremony: { challenge: 'POST /v1/passports/device-challenges', register: 'POST /v1/passports/devices' } },
        });
      }
      if (body.type === 'organization' && !grants(principal.scopes, 'platform:admin')) {
        throw new Problem('insufficient_scope', 'An organization Passport needs the scope platform:admin', { extensions: { required_scope: 'platform:admin' } });
      }
      const passportId = resourceId('pp', principal.id, req.get('idempotency-key'));
      const outcome = await createServerPassport(services, principal, passportId, {
        type: body.type,
        name: body.name,
        metadata: body.metadata ?? {},
        capabilities: body.capabilities ?? [],
      });
      if (!outcome.ok) {
        if (outcome.code === 'secrets_unavailable') throw new Problem('secrets_unavailable', 'No key can be sealed: SECRETS_ENCRYPTION_KEY is not configured');
        throw new Problem('organization_passport_exists', `The organization’s Passport is ${outcome.passport_id}`, { extensions: { passport_id: outcome.passport_id } });
      }
      return { status: 201, body: createdEnvelope(outcome.passport, requestIdOf(res)), headers: { Location: `/v1/passports/${passportId}` } };
    },
  });

  api.route({
    method: 'get',
    path: '/v1/passports/{passport_id}',
    operationId: 'getPassport',
    summary: 'Read a Passport, with its keys',
    tags: ['Passports'],
    auth: 'platform:read',
    rateLimit: 'default',
    request: { params: PassportIdParamsSchema },
    responses: { 200: { description: 'The Passport', schema: PassportSchema }, ...NOT_FOUND },
    handler: async ({ params, principal }) => {
      const found = await readPassport(deps.db, params.passport_id, principal.organization_id);
      if (!found) throw new Problem('passport_not_found', `No Passport ${params.passport_id}`);
      return { status: 200, body: passportView(found) };
    },
  });

  api.route({
    method: 'get',
    path: '/v1/passports/{passport_id}/jwks',
    operationId: 'getPassportJwks',
    summary: 'The Passport’s public keys that verify now',
    description: 'Active keys and rotated-out keys until their verifyUntil; never a revoked key. The same set as the DID document’s verification methods.',
    tags: ['Passports'],
    auth: 'platform:read',
    rateLimit: 'default',
    request: { params: PassportIdParamsSchema },
    responses: { 200: { description: 'A JSON Web Key Set', schema: PassportJwksSchema }, ...NOT_FOUND },
    handler: async ({ params, principal }) => {
      const { keys } = await publishedKeysOf(params.passport_id, principal.organization_id);
      return { status: 200, body: { keys: keys.map((key) => ({ ...key.jwk, kid: key.kid, alg: 'EdDSA' as const, use: 'sig' as const })) } };
    },
  });

  api.route({
    method: 'get',
    path: '/v1/passports/{passport_id}/did',
    operationId: 'getPassportDidDocument',
    summary: 'The Passport’s DID document in the platform spec’s shape',
    description: 'id, publicKey [{id, type, controller, publicKeyPem}], authentication. The DID Core document is public at /passports/{passport_id}/did.json.',
    tags: ['Passports'],
    auth: 'platform:read',
    rateLimit: 'default',
    request: { params: PassportIdParamsSchema },
    responses: { 200: { description: 'The DID document', schema: SpecDidDocumentSchema }, ...NOT_FOUND },
    handler: async ({ params, principal }) => {
      const { passport, keys } = await publishedKeysOf(params.passport_id, principal.organization_id);
      return { status: 200, body: specDidDocument(passport.did, keys) };
    },
  });

  api.route({
    method: 'get',
    path: '/passports/{passport_id}/did.json',
    operationId: 'resolvePassportDid',
    summary: 'did:web resolution of a Passport’s DID',
    description: 'Where did:web:<host>:passports:<id> resolves: the DID Core document (application/did+json). Public; each key’s did:key is in alsoKnownAs.',
    tags: ['Passports'],
    auth: 'public',
    rateLimit: 'default',
    request: { params: PassportIdParamsSchema },
    responses: { 200: { description: 'The DID document', schema: DidDocumentSchema, contentType: DID_DOCUMENT_MEDIA_TYPE }, 404: { description: 'passport_not_found' } },
    handler: async ({ res, params }) => {
      const { passport, keys } = await publishedKeysOf(params.passport_id);
      res.set('Cache-Control', 'public, max-age=60');
      const controller = passport.type === 'individual' ? passport.did : passport.org_did;
      return { status: 200, text: { contentType: DID_DOCUMENT_MEDIA_TYPE, content: JSON.stringify(didDocument(passport.did, keys, controller)) } };
    },
  });

  api.route({
    method: 'get',
    path: '/passports/{passport_id}/jwks.json',
    operationId: 'resolvePassportJwks',
    summary: 'The Passport’s public keys, beside its DID document',
    tags: ['Passports'],
    auth: 'public',
    rateLimit: 'default',
    request: { params: PassportIdParamsSchema },
    responses: { 200: { description: 'A JSON Web Key Set', schema: PassportJwksSchema }, 404: { description: 'passport_not_found' } },
    handler: async ({ res, params }) => {
      const { keys } = await publishedKeysOf(params.passport_id);
      res.set('Cache-Control', 'public, max-age=60');
      return { status: 200, body: { keys: keys.map((key) => ({ ...key.jwk, kid: key.kid, alg: 'EdDSA' as const, use: 'sig' as const })) } };
    },
  });

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
      ...NOT_FOUND,
      409: { description: 'passport_keys_on_device: a person’s Passport' },
      503: { description: 'secrets_unavailable' },
    },
    handler: async ({ params, principal }) => {
      const found = await readPassport(deps.db, params.passport_id, principal.organization_id);
      if (found?.passport.type === 'organization' && !grants(principal.scopes, 'platform:admin')) {
        throw new Problem('insufficient_scope', 'The organization Passport’s keys need the scope platform:admin', { extensions: { required_scope: 'platform:admin' } });
      }
      const outcome = await rotatePassportKeys(services, principal, params.passport_id);
      if (!outcome.ok) {
        const details = {
          passport_not_found: `No Passport ${params.passport_id}`,
          passport_keys_on_device: 'A person’s keys are made and kept on their devices: register a new device key, and revoke the old one',
          secrets_unavailable: 'No key can be sealed: SECRETS_ENCRYPTION_KEY is not configured',
        };
        throw new Problem(outcome.code, details[outcome.code]);
      }
      return { status: 200, body: { passportId: params.passport_id, did: outcome.passport.passport.did, key: keyView(outcome.key), retired: outcome.retired.map(keyView) } };
    },
  });

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
      const found = await readPassport(deps.db, params.passport_id, principal.organization_id);
      if (found?.passport.type === 'organization' && !grants(principal.scopes, 'platform:admin')) {
        throw new Problem('insufficient_scope', 'The organization Passport’s keys need the scope platform:admin', { extensions: { required_scope: 'platform:admin' } });
      }
      const outcome = await revokePassportKeyOf(services, principal, params.passport_id, params.kid, body.reason);
      if (!outcome.ok) {
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
      403: { description: 'insufficient_scope: enrolling a person needs people:enroll or platform:admin (a delegation token: the capability people:enroll)' },
    },
    handler: async ({ res, body, principal }) => {
      const { challenge, expires_at } = await createRegistrationChallenge(ceremony, principal, { name: body.name, metadata: body.metadata ?? {}, capabilities: body.capabilities ?? [] });
      res.set('Cache-Control', 'no-store');
      return { status: 201, body: { challenge, purpose: 'registration' as const, expiresAt: expires_at.toISOString(), organizationId: principal.organization_id } };
    },
  });

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
      201: { description: 'The person’s Passport', schema: PassportCreatedSchema, headers: { Location: { description: 'The Passport' } } },
      ...CEREMONY_REFUSALS,
      409: { description: 'device_key_exists: this key is registered already' },
    },
    handler: async ({ res, body }) => {
      const outcome = await registerDevice(ceremony, body);
      if (!outcome.ok) throw outcome.code === 'device_key_exists' ? new Problem('device_key_exists', outcome.detail) : ceremonyProblem(outcome);
      return { status: 201, body: createdEnvelope(outcome.passport, requestIdOf(res)), headers: { Location: `/v1/passports/${outcome.passport.passport.passport_id}` } };
    },
  });

  api.route({
    method: 'post',
    path: '/v1/passports/{passport_id}/sign-in-challenges',
    operationId: 'createDeviceSignInChallenge',
    summary: 'A challenge for a person’s device to sign in with',
    description: 'Public. Sign it with an active device key of the Passport and send it to POST /v1/passports/{passport_id}/sessions before expiresAt. Single-use.',
    tags: ['Passports'],
    auth: 'public',
    rateLimit: 'default',
    request: { params: PassportIdParamsSchema },
    responses: { 201: { description: 'The challenge', schema: ChallengeSchema }, 404: { description: 'passport_not_found: no person’s Passport with this id' } },
    handler: async ({ res, params }) => {
      const outcome = await createSignInChallenge(ceremony, params.passport_id);
      if (!outcome.ok) throw new Problem('passport_not_found', `No person’s Passport ${params.passport_id}`);
      res.set('Cache-Control', 'no-store');
      return { status: 201, body: { challenge: outcome.challenge, purpose: 'sign_in' as const, expiresAt: outcome.expires_at.toISOString(), organizationId: outcome.organization_id, passportId: params.passport_id } };
    },
  });

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
    responses: { 201: { description: 'The session', schema: SessionSchema }, ...CEREMONY_REFUSALS, 404: { description: 'passport_not_found: no person’s Passport with this id' } },
    handler: async ({ res, params, body }) => {
      const outcome = await signInWithDevice(ceremony, params.passport_id, body.proof);
      if (!outcome.ok) throw outcome.code === 'passport_not_found' ? new Problem('passport_not_found', `No person’s Passport ${params.passport_id}`) : ceremonyProblem(outcome);
      res.set('Cache-Control', 'no-store');
      const { session } = outcome;
      return {
        status: 201,
        body: {
          sessionToken: outcome.token,
          tokenType: 'session' as const,
          expiresAt: session.expires_at.toISOString(),
          passportId: session.passport_id,
          did: session.did,
          credential: { type: 'device_key' as const, id: session.credential.id },
        },
      };
    },
  });
}

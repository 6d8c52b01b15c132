import type { Knex } from 'knex';
import { DID_DOCUMENT_MEDIA_TYPE, didDocument, specDidDocument } from '../../domain/identity/did';
import type { KeyRing } from '../../services/identity/issuance/key-ring';
import { publishedPasskeys } from '../../services/identity/passkeys/passkey-jwk';
import type { TokenSettings } from '../../services/identity/authentication/actor';
import type { RevocationRegistry } from '../../services/identity/delegations/revocations';
import {
  createServerPassport,
  readPassport,
  readPublishedKeys,
  type CreateOutcome,
  type PassportServiceDeps,
} from '../../services/identity/passports/passports';
import type { PassportSettings } from '../../services/identity/passports/settings';
import type { Principal } from '../../services/identity/scopes';
import { resourceId } from '../../lib/ids';
import { requestIdOf } from '../middleware/request-id';
import { Problem } from '../problem';
import type { ApiBuilder } from '../route';
import { routeGroup, type RouteGroup } from '../route-group';
import {
  createdEnvelope,
  CreatePassportSchema,
  DidDocumentSchema,
  jwksView,
  PassportCreatedSchema,
  PassportIdParamsSchema,
  PassportJwksSchema,
  PassportSchema,
  passportView,
  SpecDidDocumentSchema,
} from '../schemas/passports';
import { registerPassportDeviceRoutes } from './passport-devices';
import { organizationAdminProblem, registerPassportKeyRoutes } from './passport-keys';

export interface PassportRouteDeps {
  db: Knex;
  keyRing: KeyRing;
  token: TokenSettings;
  settings: PassportSettings;
  revocations: RevocationRegistry;
}

const MISSING_PASSPORT = {
  code: 'passport_not_found' as const,
  description: 'passport_not_found: no such Passport in the caller’s organization',
  detail: ({ params }: { params: { passport_id: string } }) => `No Passport ${params.passport_id}`,
};

/** Every Passport route: creation and the reads here, then its server keys and a person's device ceremony. */
export function registerPassportRoutes(api: ApiBuilder, deps: PassportRouteDeps): void {
  const passports = routeGroup(api, { tags: ['Passports'], auth: 'platform:read', rateLimit: 'default' });
  const services = { db: deps.db, settings: deps.settings, revocations: deps.revocations };
  registerCreatePassport(passports, services);
  registerPassportReads(passports, deps.db);
  registerPublicDidResolution(api, deps.db);
  registerPassportKeyRoutes(passports, services);
  registerPassportDeviceRoutes(api, { db: deps.db, keyRing: deps.keyRing, token: deps.token, settings: deps.settings });
}

async function publishedKeysOf(db: Knex, passportId: string) {
  const found = await readPublishedKeys(db, passportId, new Date());
  if (!found) throw new Problem('passport_not_found', `No Passport ${passportId}`);
  return found;
}

/** A person's Passport is not created here: their device makes and keeps the key. */
const individualRefused = () =>
  new Problem(
    'invalid_request',
    'A person’s Passport is minted on their device, which makes and keeps the key: use the device ceremony or a passkey',
    {
      extensions: {
        ceremony: { challenge: 'POST /v1/passports/device-challenges', register: 'POST /v1/passports/devices' },
      },
    },
  );

function creationProblem(refusal: Exclude<CreateOutcome, { ok: true }>): Problem {
  if (refusal.code === 'insufficient_scope')
    return organizationAdminProblem(refusal, 'An organization Passport needs the scope platform:admin');
  if (refusal.code === 'secrets_unavailable')
    return new Problem('secrets_unavailable', 'No key can be sealed: SECRETS_ENCRYPTION_KEY is not configured');
  return new Problem('organization_passport_exists', `The organization’s Passport is ${refusal.passport_id}`, {
    extensions: { passport_id: refusal.passport_id },
  });
}

function registerCreatePassport(passports: RouteGroup, services: PassportServiceDeps): void {
  passports.route({
    method: 'post',
    path: '/v1/passports',
    operationId: 'createPassport',
    summary: 'Create an agent’s or the organization’s Passport',
    description:
      'Generates the DID (did:web under PUBLIC_BASE_URL) and an Ed25519 key pair whose private key is sealed at rest, and records the creation in ' +
      'the provenance ledger. The Passport belongs to the caller’s organization. type organization is the organization’s own identity: one per ' +
      'organization, and it needs platform:admin. type individual is refused: a person’s key is made and kept on their device, so their Passport ' +
      'is minted by the device ceremony (POST /v1/passports/device-challenges, then POST /v1/passports/devices) or a passkey.',
    auth: 'platform:write',
    request: { body: CreatePassportSchema },
    responses: {
      201: {
        description: 'The Passport',
        schema: PassportCreatedSchema,
        headers: { Location: { description: 'The Passport' } },
      },
      400: { description: 'invalid_request: type individual (use the device ceremony)' },
      403: { description: 'insufficient_scope: type organization needs platform:admin' },
      409: { description: 'organization_passport_exists: the organization has its Passport (passport_id names it)' },
      503: {
        description: 'secrets_unavailable: SECRETS_ENCRYPTION_KEY is not configured, so no private key can be sealed',
      },
    },
    handler: async ({ req, res, body, principal }) => {
      if (body.type === 'individual') throw individualRefused();
      const passportId = resourceId('pp', principal.id, req.get('idempotency-key'));
      const fields = {
        type: body.type,
        name: body.name,
        metadata: body.metadata ?? {},
        capabilities: body.capabilities ?? [],
      };
      const outcome = await createServerPassport(services, principal, passportId, fields);
      if (!outcome.ok) throw creationProblem(outcome);
      return {
        status: 201,
        body: createdEnvelope(outcome.passport, requestIdOf(res), new Date()),
        headers: { Location: `/v1/passports/${passportId}` },
      };
    },
  });
}

/** The Passport and the keys it publishes, in the caller's organization. */
function registerPassportReads(passports: RouteGroup, db: Knex): void {
  passports.get({
    path: '/v1/passports/{passport_id}',
    operationId: 'getPassport',
    summary: 'Read a Passport, with its keys',
    params: PassportIdParamsSchema,
    found: { description: 'The Passport', schema: PassportSchema },
    missing: MISSING_PASSPORT,
    find: ({ params, principal }) => readPassport(db, params.passport_id, principal.organization_id),
    view: passportView,
  });
  const publishedKeys = ({ params, principal }: { params: { passport_id: string }; principal: Principal }) =>
    readPublishedKeys(db, params.passport_id, new Date(), principal.organization_id);
  passports.get({
    path: '/v1/passports/{passport_id}/jwks',
    operationId: 'getPassportJwks',
    summary: 'The Passport’s public keys that verify now',
    description:
      'Active keys and rotated-out keys until their verifyUntil; never a revoked key. The same set as the DID document’s verification methods.',
    params: PassportIdParamsSchema,
    found: { description: 'A JSON Web Key Set', schema: PassportJwksSchema },
    missing: MISSING_PASSPORT,
    find: publishedKeys,
    view: ({ keys }) => jwksView(keys),
  });
  passports.get({
    path: '/v1/passports/{passport_id}/did',
    operationId: 'getPassportDidDocument',
    summary: 'The Passport’s DID document in the platform spec’s shape',
    description:
      'id, publicKey [{id, type, controller, publicKeyPem}], authentication. The DID Core document is public at /passports/{passport_id}/did.json.',
    params: PassportIdParamsSchema,
    found: { description: 'The DID document', schema: SpecDidDocumentSchema },
    missing: MISSING_PASSPORT,
    find: publishedKeys,
    view: ({ passport, keys }) => specDidDocument(passport.did, keys),
  });
}

/** Public where did:web resolves: the DID Core document and the JWKS beside it. */
function registerPublicDidResolution(api: ApiBuilder, db: Knex): void {
  api.route({
    tags: ['Passports'],
    auth: 'public',
    rateLimit: 'default',
    request: { params: PassportIdParamsSchema },
    method: 'get',
    path: '/passports/{passport_id}/did.json',
    operationId: 'resolvePassportDid',
    summary: 'did:web resolution of a Passport’s DID',
    description:
      'Where did:web:<host>:passports:<id> resolves: the DID Core document (application/did+json). Public; each key’s did:key is in alsoKnownAs. ' +
      'A person’s active passkeys are methods #passkey-<credential id> (EC P-256, Ed25519 or RSA JWKs): decisions they sign in the inbox verify against them (docs/decision-signatures.md).',
    responses: {
      200: { description: 'The DID document', schema: DidDocumentSchema, contentType: DID_DOCUMENT_MEDIA_TYPE },
      404: { description: 'passport_not_found' },
    },
    handler: async ({ res, params }) => {
      const { passport, keys } = await publishedKeysOf(db, params.passport_id);
      res.set('Cache-Control', 'public, max-age=60');
      const controller = passport.type === 'individual' ? passport.did : passport.org_did;
      const passkeys = await publishedPasskeys(db, passport);
      return {
        status: 200,
        text: {
          contentType: DID_DOCUMENT_MEDIA_TYPE,
          content: JSON.stringify(didDocument(passport.did, keys, controller, passkeys)),
        },
      };
    },
  });
  api.route({
    tags: ['Passports'],
    auth: 'public',
    rateLimit: 'default',
    request: { params: PassportIdParamsSchema },
    method: 'get',
    path: '/passports/{passport_id}/jwks.json',
    operationId: 'resolvePassportJwks',
    summary: 'The Passport’s public keys, beside its DID document',
    responses: {
      200: { description: 'A JSON Web Key Set', schema: PassportJwksSchema },
      404: { description: 'passport_not_found' },
    },
    handler: async ({ res, params }) => {
      const { keys } = await publishedKeysOf(db, params.passport_id);
      res.set('Cache-Control', 'public, max-age=60');
      return { status: 200, body: jwksView(keys) };
    },
  });
}

import type { PassportKeyRow } from '../../db/passports';
import { didKeyOfJwk, ed25519PublicKeyPem, type PublishedKey } from '../../domain/identity/did';
import { PASSPORT_TYPES } from '../../domain/common/organizations';
import { publishedKey } from '../../services/identity/passports/keys';
import type { PassportWithKeys } from '../../services/identity/passports/passports';
import { z } from './zod';

const JsonObjectSchema = z.record(z.string(), z.unknown());

export const CapabilityIdSchema = z
  .string()
  .regex(
    /^(?:capability:\/\/(?:[a-z0-9][a-z0-9._-]{0,62}\/)?)?[a-z0-9][a-z0-9._-]{0,62}$/,
    'must be a capability URI (capability://<org>/<name>) or a capability name',
  )
  .openapi({
    description: 'A capability URI, or a bare name (stored as capability://<name>)',
    example: 'capability://acme/summarize',
  });

/** Not blank: at least one character that is not white space. */
const TextSchema = (max: number) => z.string().max(max).regex(/\S/, 'must not be blank');
export const NameSchema = TextSchema(200);

export const PassportIdParamsSchema = z.object({
  passport_id: z
    .string()
    .regex(/^pp_[A-Za-z0-9_-]{1,100}$/, 'must be a Passport id (pp_…)')
    .openapi({ example: 'pp_0b6f4a52-3c1e-4d0e-9f3a-6f5d2b7c8e91' }),
});

export const PassportKeyParamsSchema = PassportIdParamsSchema.extend({
  kid: z
    .string()
    .regex(/^[A-Za-z0-9_-]{43}$/, 'must be a key id: the key’s RFC 7638 thumbprint (43 base64url characters)'),
});

export const CreatePassportSchema = z
  .object({
    type: z.enum(PASSPORT_TYPES).openapi({
      description:
        'agent or organization here; an individual is minted by the device ceremony (POST /v1/passports/devices)',
    }),
    name: NameSchema,
    metadata: JsonObjectSchema.optional(),
    capabilities: z.array(CapabilityIdSchema).max(100).optional(),
  })
  .strict()
  .openapi('CreatePassport');

const PublicJwkSchema = z
  .object({
    kty: z.literal('OKP'),
    crv: z.literal('Ed25519'),
    x: z.string(),
    kid: z.string(),
    alg: z.literal('EdDSA'),
    use: z.literal('sig'),
  })
  .openapi('PassportPublicJwk', { description: 'An Ed25519 public key; kid is its RFC 7638 thumbprint' });

const PasskeyJwkSchema = z
  .object({
    kty: z.enum(['EC', 'OKP', 'RSA']),
    crv: z.string().optional(),
    x: z.string().optional(),
    y: z.string().optional(),
    n: z.string().optional(),
    e: z.string().optional(),
    alg: z.enum(['ES256', 'ES384', 'ES512', 'EdDSA', 'RS256']),
  })
  .openapi('PasskeyPublicJwk', { description: 'A person’s passkey public key, as its DID document publishes it' });

export const PassportCreatedSchema = z
  .object({
    data: z.object({
      passportId: z.string(),
      did: z.string().openapi({ example: 'did:web:handoff.example:passports:pp_0b6f4a52-3c1e-4d0e-9f3a-6f5d2b7c8e91' }),
      type: z.enum(PASSPORT_TYPES),
      name: z.string(),
      publicKey: z.string().openapi({ description: 'The Passport’s signing key, PEM (SubjectPublicKeyInfo)' }),
      publicKeyJwk: PublicJwkSchema,
      didKey: z.string().openapi({
        description: 'The key’s did:key form, also an alias (alsoKnownAs) in the DID document',
        example: 'did:key:z6MkiTBz1ymuepAQ4HEHYSF1H8quG5GLVVQR3djdX3mDooWp',
      }),
      createdAt: z.string(),
    }),
    meta: z.object({ timestamp: z.string(), requestId: z.string() }),
  })
  .openapi('PassportCreated');

const PassportKeySchema = z
  .object({
    kid: z.string(),
    status: z.enum(['active', 'retired', 'revoked']),
    source: z.enum(['server', 'device']).openapi({
      description:
        'server: made and held sealed by the service (agents, organizations); device: a person’s device holds it',
    }),
    deviceId: z.string().nullable(),
    publicKeyJwk: PublicJwkSchema,
    didKey: z.string(),
    createdAt: z.string(),
    retiredAt: z.string().nullable(),
    verifyUntil: z
      .string()
      .nullable()
      .openapi({ description: 'A rotated-out key verifies what it signed until then, and signs nothing more' }),
    revokedAt: z.string().nullable(),
    revokeReason: z.string().nullable(),
  })
  .openapi('PassportKey');

export const PassportSchema = z
  .object({
    id: z.string(),
    owner: z.string().openapi({
      description:
        'The DID that owns the Passport: the person’s own DID, or the organization’s DID for agents and the organization',
    }),
    capabilities: z.array(z.string()),
    createdAt: z.string(),
    did: z.string(),
    type: z.enum(PASSPORT_TYPES),
    name: z.string(),
    status: z.string(),
    organizationId: z.string(),
    metadata: JsonObjectSchema,
    keys: z.array(PassportKeySchema),
  })
  .openapi('Passport');

export const PassportJwksSchema = z.object({ keys: z.array(PublicJwkSchema) }).openapi('PassportJwks');

export const DidDocumentSchema = z
  .object({
    '@context': z.array(z.string()),
    id: z.string(),
    controller: z.string(),
    alsoKnownAs: z.array(z.string()),
    verificationMethod: z.array(
      z.object({
        id: z.string(),
        type: z.literal('JsonWebKey'),
        controller: z.string(),
        publicKeyJwk: z.union([PublicJwkSchema, PasskeyJwkSchema]),
      }),
    ),
    authentication: z.array(z.string()),
    assertionMethod: z.array(z.string()),
  })
  .openapi('DidDocument', { description: 'A DID Core document (application/did+json)' });

export const SpecDidDocumentSchema = z
  .object({
    id: z.string(),
    publicKey: z.array(
      z.object({ id: z.string(), type: z.string(), controller: z.string(), publicKeyPem: z.string() }),
    ),
    authentication: z.array(z.object({ type: z.string(), publicKey: z.string() })),
  })
  .openapi('PassportDidDocument', { description: 'The platform spec’s shape of the DID document' });

export const RotateKeysSchema = z
  .object({
    passphrase: z.string().min(1).max(1024).openapi({
      description:
        'Required by the platform spec and never stored: the server key is sealed with the deployment’s secret box, not with a passphrase, and the caller is authorized by its token',
    }),
  })
  .strict()
  .openapi('RotatePassportKeys');

export const KeysRotatedSchema = z
  .object({ passportId: z.string(), did: z.string(), key: PassportKeySchema, retired: z.array(PassportKeySchema) })
  .openapi('PassportKeysRotated');

export const RevokeKeySchema = z
  .object({ reason: TextSchema(500) })
  .strict()
  .openapi('RevokePassportKey');

export const RevokedKeySchema = z
  .object({ passportId: z.string(), key: PassportKeySchema })
  .openapi('PassportKeyRevoked');

const iso = (date: Date | null) => (date ? date.toISOString() : null);

export function keyView(row: PassportKeyRow): z.infer<typeof PassportKeySchema> {
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

export function passportView({ passport, keys }: PassportWithKeys): z.infer<typeof PassportSchema> {
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
export function createdEnvelope(
  { passport, keys }: PassportWithKeys,
  requestId: string,
  now: Date,
): z.infer<typeof PassportCreatedSchema> {
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
    meta: { timestamp: now.toISOString(), requestId },
  };
}

export function jwksView(keys: readonly PublishedKey[]): z.infer<typeof PassportJwksSchema> {
  return { keys: keys.map((key) => ({ ...key.jwk, kid: key.kid, alg: 'EdDSA' as const, use: 'sig' as const })) };
}

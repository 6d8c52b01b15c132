import { CapabilityIdSchema, NameSchema } from './passports';
import { z } from './zod';

/** The device ceremony's bodies: a person's device registers its key, and signs in with it, by signing a challenge. */
const JsonObjectSchema = z.record(z.string(), z.unknown());

export const RegistrationChallengeRequestSchema = z
  .object({
    name: NameSchema.openapi({ description: 'The person’s name on the Passport the device ceremony mints' }),
    metadata: JsonObjectSchema.optional(),
    capabilities: z.array(CapabilityIdSchema).max(100).optional(),
  })
  .strict()
  .openapi('DeviceRegistrationChallengeRequest');

export const ChallengeSchema = z
  .object({
    challenge: z.string().openapi({ description: 'Sign it, once, in a device-proof+jwt before expiresAt' }),
    purpose: z.enum(['registration', 'sign_in']),
    expiresAt: z.string(),
    organizationId: z.string(),
    passportId: z.string().optional(),
  })
  .openapi('DeviceChallenge');

const CompactJwsSchema = z
  .string()
  .max(8192)
  .regex(/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/, 'must be a compact JWS (three base64url parts)');

export const DidKeySchema = z
  .string()
  .regex(/^did:key:z6Mk[1-9A-HJ-NP-Za-km-z]{44}$/, 'must be an Ed25519 did:key (did:key:z6Mk…)')
  .openapi({ example: 'did:key:z6MkiTBz1ymuepAQ4HEHYSF1H8quG5GLVVQR3djdX3mDooWp' });

/** x: 32 bytes in unpadded base64url, whose last character carries two zero bits. */
export const DevicePublicJwkSchema = z
  .strictObject(
    {
      kty: z.literal('OKP'),
      crv: z.literal('Ed25519'),
      x: z
        .string()
        .regex(/^[A-Za-z0-9_-]{42}[AEIMQUYcgkosw048]$/, 'must be the 32-byte public key in unpadded base64url'),
      kid: z.string().max(100).optional(),
      alg: z.literal('EdDSA').optional(),
      use: z.literal('sig').optional(),
    },
    {
      error: (issue) =>
        issue.code === 'unrecognized_keys' && issue.keys.includes('d')
          ? 'must be the public key only: d is the private key, which never leaves the device'
          : undefined,
    },
  )
  .openapi('DevicePublicJwk');

export const DeviceRegistrationSchema = z
  .object({
    proof: CompactJwsSchema.openapi({
      description:
        'A JWT, typ device-proof+jwt, alg EdDSA, signed by the device key, with claims challenge and deviceId',
    }),
    deviceId: z
      .string()
      .min(1)
      .max(200)
      .regex(/^[\x21-\x7e]+$/, 'must be visible ASCII')
      .openapi({ example: 'iphone-7f3a' }),
    publicKey: z.union([DidKeySchema, DevicePublicJwkSchema]).openapi({
      description:
        'The device’s Ed25519 public key: a JWK (kty OKP, crv Ed25519, x; never d), or its did:key (did:key:z6Mk…)',
    }),
  })
  .strict()
  .openapi('DeviceRegistration');

export const SignInSchema = z
  .object({
    proof: CompactJwsSchema.openapi({
      description:
        'A JWT, typ device-proof+jwt, alg EdDSA, kid = the device key’s thumbprint, with the claim challenge',
    }),
  })
  .strict()
  .openapi('DeviceSignIn');

export const SessionSchema = z
  .object({
    sessionToken: z
      .string()
      .openapi({ description: 'A session token (typ session+jwt); exchange it for a delegation token' }),
    tokenType: z.literal('session'),
    expiresAt: z.string(),
    passportId: z.string(),
    did: z.string(),
    credential: z.object({ type: z.literal('device_key'), id: z.string() }),
  })
  .openapi('PassportSession');

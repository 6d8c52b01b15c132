import type { PasskeyRow, PassportIdentity } from '../../db/webauthn';
import type { SignedIn } from '../../services/identity/passkeys/ceremony';
import { DidSchema } from './common';
import { z } from './zod';

const base64url = (what: string, max: number) =>
  z
    .string()
    .min(1)
    .max(max)
    .regex(/^[A-Za-z0-9_-]+$/, 'must be base64url without padding')
    .openapi({ description: `${what}, base64url`, example: 'kZ3xQ0pYb8yTzZ1Lw5vC9A' });

const CredentialIdSchema = base64url('The credential id', 1400);

const clientExtensionResults = z
  .record(z.string().max(64), z.unknown())
  .default({})
  .openapi({ description: 'The browser’s clientExtensionResults, as PublicKeyCredential.toJSON() gives them' });

/** A new passkey as navigator.credentials.create() gives it, serialized by PublicKeyCredential.toJSON(). */
export const RegistrationResponseSchema = z
  .object({
    id: CredentialIdSchema,
    rawId: CredentialIdSchema,
    type: z.literal('public-key'),
    response: z.object({
      clientDataJSON: base64url('The client data JSON', 8192),
      attestationObject: base64url('The attestation object (CBOR)', 32768),
      authenticatorData: base64url('The authenticator data', 32768).optional(),
      transports: z.array(z.string().max(32)).max(16).optional(),
      publicKeyAlgorithm: z.number().int().optional(),
      publicKey: base64url('The public key (SPKI)', 8192).optional(),
    }),
    authenticatorAttachment: z.enum(['platform', 'cross-platform']).optional(),
    clientExtensionResults,
  })
  .openapi('WebAuthnRegistrationResponse', {
    description: 'PublicKeyCredential.toJSON() of the credential navigator.credentials.create() returned',
  });

/** A passkey assertion as navigator.credentials.get() gives it, serialized by PublicKeyCredential.toJSON(). */
export const AuthenticationResponseSchema = z
  .object({
    id: CredentialIdSchema,
    rawId: CredentialIdSchema,
    type: z.literal('public-key'),
    response: z.object({
      clientDataJSON: base64url('The client data JSON', 8192),
      authenticatorData: base64url('The authenticator data', 32768),
      signature: base64url('The signature', 8192),
      userHandle: base64url('The user handle (the Passport id)', 1024).optional(),
    }),
    authenticatorAttachment: z.enum(['platform', 'cross-platform']).optional(),
    clientExtensionResults,
  })
  .openapi('WebAuthnAuthenticationResponse', {
    description: 'PublicKeyCredential.toJSON() of the credential navigator.credentials.get() returned',
  });

const personName = (what: string) => z.string().trim().min(1).max(256).openapi({ description: what });

export const EnrollmentRequestSchema = z
  .object({
    userId: personName(
      'Who the person is to the organization (an e-mail address, an employee number): the name their authenticator shows',
    ),
    displayName: personName('The name to show for the person; userId when absent').optional(),
    reviewer_did: DidSchema.optional().openapi({
      description:
        'A reviewer of your organization (PUT /v1/orch/reviewers/{did}) that no Passport signs in as yet: the Passport the enrollment mints ' +
        'is linked to it when the person completes it, so the routings escalated to that reviewer reach them (as PUT with passport_id would ' +
        'link it afterwards). Unknown, or another organization’s: 422 enrollment_reviewer_not_found; linked to a Passport already: 409 ' +
        'reviewer_already_linked',
    }),
  })
  .openapi('PasskeyEnrollmentRequest');

export const RegistrationRequestSchema = z
  .object({ response: RegistrationResponseSchema })
  .openapi('PasskeyRegistrationRequest');
export const AuthenticationRequestSchema = z
  .object({ response: AuthenticationResponseSchema })
  .openapi('PasskeyAuthenticationRequest');

export const RotationOptionsRequestSchema = z
  .object({
    credentialId: CredentialIdSchema.optional().openapi({
      description: 'The passkey to replace; the one this session was signed in with when absent',
    }),
  })
  .openapi('PasskeyRotationOptionsRequest');

export const RotationRequestSchema = z
  .object({
    challenge: base64url('The challenge of the rotation options, which the new passkey signed', 512),
    response: RegistrationResponseSchema,
  })
  .openapi('PasskeyRotationRequest');

export const PassportIdParamsSchema = z.object({
  passport_id: z.string().min(1).max(128).openapi({ example: 'pp_7d0c1c52-8a39-4c52-9a85-1f0b7e4f1e0a' }),
});

const CredentialDescriptorSchema = z.object({
  id: z.string(),
  type: z.literal('public-key'),
  transports: z.array(z.string()).optional(),
});

/** PublicKeyCredentialCreationOptionsJSON: give it to PublicKeyCredential.parseCreationOptionsFromJSON(), then navigator.credentials.create({ publicKey }). */
const CreationOptionsSchema = z
  .object({
    rp: z.object({ id: z.string().optional(), name: z.string() }),
    user: z.object({
      id: z.string().openapi({ description: 'The user handle: the Passport id, base64url' }),
      name: z.string(),
      displayName: z.string(),
    }),
    challenge: z.string(),
    pubKeyCredParams: z.array(z.object({ alg: z.number().int(), type: z.literal('public-key') })),
    timeout: z.number().int().optional(),
    excludeCredentials: z.array(CredentialDescriptorSchema).optional(),
    authenticatorSelection: z.record(z.string(), z.unknown()).optional(),
    attestation: z.string().optional(),
  })
  .catchall(z.unknown())
  .openapi('WebAuthnCreationOptions', { description: 'PublicKeyCredentialCreationOptionsJSON (WebAuthn Level 3)' });

/** PublicKeyCredentialRequestOptionsJSON: give it to PublicKeyCredential.parseRequestOptionsFromJSON(), then navigator.credentials.get({ publicKey }). */
const RequestOptionsSchema = z
  .object({
    challenge: z.string(),
    rpId: z.string().optional(),
    timeout: z.number().int().optional(),
    allowCredentials: z.array(CredentialDescriptorSchema).optional(),
    userVerification: z.string().optional(),
  })
  .catchall(z.unknown())
  .openapi('WebAuthnRequestOptions', { description: 'PublicKeyCredentialRequestOptionsJSON (WebAuthn Level 3)' });

export const CreationOptionsReplySchema = z
  .object({
    passport_id: z.string().openapi({
      description: 'The Passport the passkey will belong to (minted when an enrollment’s passkey is registered)',
    }),
    options: CreationOptionsSchema,
    expires_at: z.string().openapi({ description: 'The challenge answers once, until then' }),
  })
  .openapi('PasskeyCreationOptions');

export const EnrollmentReplySchema = CreationOptionsReplySchema.extend({
  enrollment_url: z.string().openapi({
    description: 'A page of this deployment that completes the enrollment in the person’s browser; hand it to them',
  }),
}).openapi('PasskeyEnrollment');

export const RotationOptionsReplySchema = CreationOptionsReplySchema.extend({
  rotates_credential_id: z.string().openapi({ description: 'The passkey the new one will replace' }),
}).openapi('PasskeyRotationOptions');

export const RequestOptionsReplySchema = z
  .object({ options: RequestOptionsSchema, expires_at: z.string() })
  .openapi('PasskeySignInOptions');

export const PasskeySchema = z
  .object({
    credential_id: z.string(),
    passport_id: z.string(),
    transports: z.array(z.string()),
    status: z.enum(['active', 'revoked']),
    signature_counter: z.number().int(),
    created_at: z.string(),
    last_used_at: z.string().nullable(),
    revoked_at: z.string().nullable(),
    revoke_reason: z
      .string()
      .nullable()
      .openapi({ description: 'rotated, or counter_regression (the authenticator looked cloned)' }),
    replaced_by: z.string().nullable().openapi({ description: 'The passkey that replaced this one in a rotation' }),
  })
  .openapi('Passkey');

export const SessionSchema = z
  .object({
    session_token: z.string().openapi({
      description: 'A session+jwt: exchange it for delegation tokens, or send it as a bearer token to manage passkeys',
    }),
    token_type: z.literal('session'),
    session_id: z.string(),
    expires_at: z.string(),
    expires_in: z.number().int(),
    passport_id: z.string(),
    did: z.string(),
    credential: z.object({ type: z.enum(['passkey', 'device_key']), id: z.string() }),
  })
  .openapi('Session', {
    description: 'Valid until expires_at, and only while the passkey it was signed in with stays active',
  });

export const PersonPassportSchema = z
  .object({
    passport_id: z.string(),
    did: z.string(),
    type: z.literal('individual'),
    name: z.string(),
    organization_id: z.string(),
    status: z.string(),
    created_at: z.string(),
  })
  .openapi('PersonPassport');

export const EnrollmentResultSchema = z
  .object({ passport: PersonPassportSchema, passkey: PasskeySchema, session: SessionSchema })
  .openapi('PasskeyEnrollmentResult');

export const RotationResultSchema = z
  .object({ passkey: PasskeySchema, revoked_credential_id: z.string(), session: SessionSchema })
  .openapi('PasskeyRotationResult');

export function passkeyView(row: PasskeyRow): z.infer<typeof PasskeySchema> {
  return {
    credential_id: row.credential_id,
    passport_id: row.passport_id,
    transports: row.transports,
    status: row.status,
    signature_counter: row.counter,
    created_at: row.created_at.toISOString(),
    last_used_at: row.last_used_at?.toISOString() ?? null,
    revoked_at: row.revoked_at?.toISOString() ?? null,
    revoke_reason: row.revoke_reason,
    replaced_by: row.replaced_by,
  };
}

export function sessionView({ token, session }: SignedIn, now: Date): z.infer<typeof SessionSchema> {
  return {
    session_token: token,
    token_type: 'session',
    session_id: session.session_id,
    expires_at: session.expires_at.toISOString(),
    expires_in: Math.max(0, Math.round((session.expires_at.getTime() - now.getTime()) / 1000)),
    passport_id: session.passport_id,
    did: session.did,
    credential: session.credential,
  };
}

export function personPassportView(passport: PassportIdentity): z.infer<typeof PersonPassportSchema> {
  return {
    passport_id: passport.passport_id,
    did: passport.did,
    type: 'individual',
    name: passport.name,
    organization_id: passport.organization_id,
    status: passport.status,
    created_at: passport.created_at.toISOString(),
  };
}

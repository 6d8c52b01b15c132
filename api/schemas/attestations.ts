import type { Attestation } from '../../contracts/aggregates/attestation';
import { PassportIdParamsSchema } from './passports';
import { listQuerySchema } from './common';
import { z } from './zod';

export const AttestPersonSchema = z
  .object({
    skill: z.string().min(1).max(200).openapi({ example: 'capability://acme/clinical-review' }),
  })
  .strict()
  .openapi('AttestPersonRequest');

const iso = () => z.string().openapi({ format: 'date-time' });

/**
 * The spec's Attestation (attestationId, skill, issuer, timestamp) and what verifies it offline: the subject,
 * the key and the proof, a JWS the issuer's key signed (npm run verify -- --did-document <issuer's document>).
 */
export const PassportAttestationSchema = z
  .object({
    attestationId: z.string(),
    skill: z.string(),
    issuer: z.string().openapi({ description: 'The attesting organization Passport’s DID' }),
    timestamp: iso(),
    passportId: z.string(),
    subject: z.string().openapi({ description: 'The attested person’s DID' }),
    organizationId: z.string(),
    identityTier: z
      .number()
      .int()
      .openapi({ description: '1 for a completed organization link, 2 for an attested skill' }),
    kid: z
      .string()
      .openapi({ description: 'The issuer’s key that signed, as its DID document lists it (<issuer>#<kid>)' }),
    expiresAt: iso().openapi({ description: 'The proof verifies until then' }),
    proof: z
      .string()
      .openapi({ description: 'Compact JWS (EdDSA, typ attestation+jwt): jti, sub, skill, iat = the fields above' }),
  })
  .openapi('PassportAttestation');

export function attestationView(row: Attestation): z.infer<typeof PassportAttestationSchema> {
  return {
    attestationId: row.attestation_id,
    skill: row.skill,
    issuer: row.issuer_did,
    timestamp: row.timestamp.toISOString(),
    passportId: row.passport_id,
    subject: row.subject_did,
    organizationId: row.organization_id,
    identityTier: row.identity_tier,
    kid: row.kid,
    expiresAt: row.expires_at.toISOString(),
    proof: row.proof,
  };
}

export const AttestationParamsSchema = PassportIdParamsSchema.extend({ attestation_id: z.string().min(1).max(200) });
export const ListAttestationsQuerySchema = listQuerySchema;
export const ATTESTATION_SORTABLE = { timestamp: 'timestamp' };

import { z } from 'zod';

/**
 * What an organization vouches for about a person of it, signed by the organization Passport's key: the
 * skill (organization-membership when a link is completed), the identity tier it gives, and the compact JWS
 * an offline verifier checks against the issuer's DID document (services/identity/attestations/verify.ts).
 * Stored as passport_attestations holds it; fields in the order the view (api/schemas/attestations.ts) shows them.
 */
export const Attestation = z.object({
  attestation_id: z.string(),
  skill: z.string(),
  issuer_did: z.string(),
  timestamp: z.date(),
  passport_id: z.string(),
  subject_did: z.string(),
  organization_id: z.string(),
  identity_tier: z.number().int(),
  kid: z.string(),
  expires_at: z.date(),
  proof: z.string(),
  issued_by: z.string(),
});
export type Attestation = z.infer<typeof Attestation>;

import { z } from 'zod';

/**
 * A consent a person gave, as their own act: when, to what, and the evidence of the capability it concerns.
 * Append-only (the table refuses updates and deletes); each is a ledger record, whose transaction id it
 * keeps. Stored as passport_consents holds it; fields in the order the view (api/schemas/consents.ts) shows them.
 */
export const Consent = z.object({
  consent_id: z.string(),
  passport_id: z.string(),
  consent_timestamp: z.date(),
  description: z.string(),
  capability_evidence: z.union([z.string(), z.record(z.string(), z.unknown())]).nullable(),
  recorded_with: z.string(),
  transaction_id: z.string(),
  recorded_at: z.date(),
  organization_id: z.string(),
});
export type Consent = z.infer<typeof Consent>;

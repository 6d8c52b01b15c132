import type { Consent } from '../../contracts/aggregates/consent';
import { listQuerySchema, TimestampSchema } from './common';
import { z } from './zod';

export const RecordConsentSchema = z
  .object({
    consentTimestamp: TimestampSchema.openapi({ description: 'When the person consented' }),
    description: z
      .string()
      .min(1)
      .max(2000)
      .openapi({ example: 'Share my clinical review history with Acme triage agents' }),
    capabilityEvidence: z
      .union([z.string().min(1).max(4000), z.record(z.string(), z.unknown())])
      .optional()
      .openapi({ description: 'What the consent concerns: a capability URI, a proof, or an object describing them' }),
  })
  .strict()
  .openapi('RecordConsentRequest');

const iso = () => z.string().openapi({ format: 'date-time' });

export const ConsentSchema = z
  .object({
    consentId: z.string(),
    passportId: z.string(),
    consentTimestamp: iso(),
    description: z.string(),
    capabilityEvidence: z.union([z.string(), z.record(z.string(), z.unknown())]).nullable(),
    recordedWith: z
      .string()
      .openapi({ description: 'The passkey, device key or delegation token the person acted with' }),
    transactionId: z
      .string()
      .openapi({ description: 'The ledger record of the consent (GET /v1/ledger/records/{id}/proof)' }),
    recordedAt: iso(),
  })
  .openapi('Consent');

export function consentView(row: Consent): z.infer<typeof ConsentSchema> {
  return {
    consentId: row.consent_id,
    passportId: row.passport_id,
    consentTimestamp: row.consent_timestamp.toISOString(),
    description: row.description,
    capabilityEvidence: row.capability_evidence,
    recordedWith: row.recorded_with,
    transactionId: row.transaction_id,
    recordedAt: row.recorded_at.toISOString(),
  };
}

export const ListConsentsQuerySchema = listQuerySchema;
export const CONSENT_SORTABLE = { recorded_at: 'recorded_at' };

import { z } from 'zod';
import { GUARDIAN_STATUSES, RECOVERY_METHODS } from '../../domain/recovery/statuses';

/**
 * A recovery guardian of a person's Passport: another person of the organization whom the owner named, who
 * accepts as their own signed-in Passport within the acceptance window. A guardian counts for recovery once
 * accepted and past effective_at, until removal_effective_at; both delays keep a stolen session from
 * re-arranging the guardians and recovering at once. The recovery_guardians table stores it
 * (db/recovery-guardians.ts) and the API shows it (api/schemas/recovery.ts).
 */
export const RecoveryGuardian = z.object({
  guardian_id: z.string().meta({ example: 'rgd_5b1e…' }),
  organization_id: z.string(),
  passport_id: z.string().meta({ description: 'The Passport the guardian may help recover' }),
  guardian_passport_id: z.string(),
  guardian_did: z.string(),
  recovery_method: z.enum(RECOVERY_METHODS),
  contact: z
    .string()
    .meta({ description: 'Where the guardian is told of requests: an e-mail address, or a phone number for sms' }),
  status: z.enum(GUARDIAN_STATUSES).meta({
    description: 'invited until accepted; expired when accept_by passed first; removed once the owner asked',
  }),
  invited_at: z.string(),
  accept_by: z.string(),
  accepted_at: z.string().optional(),
  effective_at: z
    .string()
    .optional()
    .meta({ description: 'From this instant an accepted guardian counts for recovery' }),
  removal_requested_at: z.string().optional(),
  removal_effective_at: z
    .string()
    .optional()
    .meta({ description: 'From this instant a removed guardian no longer counts' }),
  provenance_id: z.string().optional().meta({ description: 'Ledger transaction of the latest change' }),
});
export type RecoveryGuardian = z.infer<typeof RecoveryGuardian>;

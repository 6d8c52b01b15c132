import { z } from 'zod';
import { PASSPORT_TYPES } from '../../domain/common/organizations';

/**
 * A Passport: the identity of a person, an agent or an organization, with a DID and the capabilities it may
 * be given. Services hold it as the passports table stores it (db/passports.ts); its keys are rows of their
 * own (passport_keys). Fields are in the order the API view shows them (api/schemas/passports.ts), which
 * adds the owner's DID and the keys.
 */
export const Passport = z.object({
  passport_id: z.string(),
  capabilities: z.array(z.string()),
  created_at: z.date(),
  did: z.string(),
  type: z.enum(PASSPORT_TYPES),
  name: z.string(),
  status: z.string(),
  organization_id: z.string(),
  metadata: z.record(z.string(), z.unknown()),
  updated_at: z.date(),
});
export type Passport = z.infer<typeof Passport>;

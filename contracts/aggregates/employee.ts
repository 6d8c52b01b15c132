import { z } from 'zod';

export const EMPLOYEE_ROLES = ['member', 'administrator'] as const;
export type EmployeeRole = (typeof EMPLOYEE_ROLES)[number];

export const EMPLOYEE_STATUSES = ['invited', 'active'] as const;

/**
 * A person an organization employs, known first by e-mail: invited with a linking code (sent by e-mail, kept
 * as an HMAC), active once a Passport of the organization is linked to the record, by the e-mail code or by
 * enrolling from the onboarding link. An active administrator holds the organization's administration.
 * Stored as the employees table holds it (db/employees.ts); the view (api/schemas/employees.ts) keeps the code
 * and the enrollment internal. Fields are in the order the view shows them.
 */
export const Employee = z.object({
  employee_id: z.string(),
  organization_id: z.string(),
  email: z.string(),
  role: z.enum(EMPLOYEE_ROLES),
  status: z.enum(EMPLOYEE_STATUSES),
  passport_id: z.string().nullable(),
  invited_by: z.string(),
  created_at: z.date(),
  linking_code_expires_at: z.date(),
  linked_at: z.date().nullable(),
  enrollment_passport_id: z.string().nullable(),
  linking_code_hash: z.string(),
  hmac_key_id: z.string(),
});
export type Employee = z.infer<typeof Employee>;

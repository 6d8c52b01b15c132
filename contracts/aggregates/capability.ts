import { z } from 'zod';

export const CAPABILITY_STATUSES = ['proposed', 'promoted'] as const;
export const GRANT_SUBJECT_TYPES = ['person', 'agent'] as const;
export const GRANT_SOURCES = ['api', 'migration'] as const;

const Instant = () => z.string().meta({ format: 'date-time' });

/**
 * A capability definition of an organization's graph, keyed by its name there (capability://<org>/<name>).
 * Services hold it as the capability_definitions table stores it (db/capabilities.ts, instants as ISO 8601);
 * the API view (api/schemas/capabilities.ts) shows it in the spec's camelCase. Fields in the view's order.
 */
export const CapabilityDefinition = z.object({
  capability_id: z.string().meta({ description: 'The capability URI', example: 'capability://acme/cardiology' }),
  organization_id: z.string(),
  capability_name: z.string(),
  name: z.string(),
  description: z.string(),
  tags: z.array(z.string()),
  implies: z.array(z.string()).meta({
    description: 'Names of the capabilities (of the same organization) a holder of this one also holds',
    example: ['physician'],
  }),
  skills: z.array(z.string()).meta({ description: 'Skill names or URIs this capability stands for' }),
  version: z.string().nullable(),
  status: z.enum(CAPABILITY_STATUSES).meta({
    description: 'proposed when defined; promoted once part of the organization’s ontology package',
  }),
  promoted_at: Instant().nullable(),
  promote_reason: z.string().nullable(),
  promoted_by: z.string().nullable(),
  created_by: z.string(),
  created_at: Instant(),
  updated_at: Instant(),
});
export type CapabilityDefinition = z.infer<typeof CapabilityDefinition>;

/**
 * A grant of one capability to a person or an agent (by DID), with a weight, the Passport that issued it
 * (whose key signs its proofs), an optional expiry and a revocation. Reviewers' and agents' capabilities that
 * routing uses are grants too. Stored as a row of capability_grants (db/capability-grants.ts).
 */
export const CapabilityGrant = z.object({
  grant_id: z.string().meta({ example: 'cgr_5b0e…' }),
  organization_id: z.string(),
  capability_id: z.string(),
  capability_name: z.string(),
  subject_type: z.enum(GRANT_SUBJECT_TYPES),
  subject_did: z.string(),
  weight: z.number().meta({ description: 'How strongly the subject holds the capability, 0 to 1' }),
  issuer_did: z.string().meta({ description: 'The DID of the Passport that issued the grant and signs its proofs' }),
  issuer_passport_id: z.string().nullable(),
  evidence: z
    .object({ course_completion_id: z.string() })
    .nullable()
    .meta({ description: 'What the grant cites: a course completion' }),
  source: z
    .enum(GRANT_SOURCES)
    .meta({ description: 'api, or migration (a reviewer’s or agent’s capability before grants)' }),
  created_by: z.string(),
  created_at: Instant(),
  expires_at: Instant().nullable().meta({ description: 'After this instant the grant never matches nor proves' }),
  revoked_at: Instant().nullable(),
  revoked_by: z.string().nullable(),
  revoke_reason: z.string().nullable(),
});
export type CapabilityGrant = z.infer<typeof CapabilityGrant>;

/** A course: completing it is evidence a grant of its capabilities can cite (db/courses.ts). */
export const Course = z.object({
  course_id: z.string(),
  organization_id: z.string(),
  title: z.string(),
  description: z.string(),
  capabilities: z.array(z.string()).meta({ description: 'Capability URIs the course teaches' }),
  created_by: z.string(),
  created_at: Instant(),
});
export type Course = z.infer<typeof Course>;

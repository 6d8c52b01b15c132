/** Grants of capabilities to agents and people, with weight, issuer and expiry. */
import { CapabilityGrant } from '../../contracts/aggregates/capability';
import { viewOf } from '../../lib/shape';
import { CapabilityIdSchema } from './passports';
import { DidSchema, listQuerySchema, NonBlankText, TimestampSchema, WeightSchema } from './common';
import { z } from './zod';

const grant = viewOf(CapabilityGrant, {
  rename: {
    grant_id: 'grantId',
    capability_id: 'capabilityId',
    subject_type: 'subjectType',
    subject_did: 'subjectDid',
    issuer_did: 'issuer',
    issuer_passport_id: 'issuerPassportId',
    created_at: 'createdAt',
    expires_at: 'expiresAt',
    revoked_at: 'revokedAt',
    revoked_by: 'revokedBy',
    revoke_reason: 'revokeReason',
  },
  hide: ['organization_id', 'capability_name', 'created_by'],
});
export const CapabilityGrantSchema = grant.schema.openapi('CapabilityGrant');
export const grantView = grant.of;

export const GrantCapabilitiesSchema = z
  .object({
    agentDID: DidSchema.optional(),
    personDID: DidSchema.optional(),
    capabilities: z.array(CapabilityIdSchema).min(1).max(100),
    weight: WeightSchema.default(1),
    expiresAt: TimestampSchema.optional().openapi({ description: 'After this the grant never matches nor proves' }),
    issuerPassportId: z.string().min(1).max(200).optional().openapi({
      description: 'An agent or organization Passport of yours that issues the grant; default: the organization’s',
    }),
    evidence: z
      .object({ courseCompletionId: z.string().min(1).max(200) })
      .strict()
      .optional(),
  })
  .strict()
  .refine((body) => (body.agentDID === undefined) !== (body.personDID === undefined), {
    message: 'name exactly one of agentDID and personDID',
    path: ['agentDID'],
  })
  .openapi('GrantCapabilitiesRequest');

export const GrantsPageItems = z.object({ data: z.array(CapabilityGrantSchema) }).openapi('CapabilityGrants');

export const GrantParamsSchema = z.object({
  grant_id: z.string().regex(/^cgr_[A-Za-z0-9-]{1,100}$/, 'must be a grant id (cgr_…)'),
});

export const RevokeGrantSchema = z
  .object({ reason: NonBlankText(2000).optional() })
  .strict()
  .openapi('RevokeGrantRequest');

export const ListGrantsQuerySchema = listQuerySchema.extend({
  subject_did: DidSchema.optional(),
  capability_id: CapabilityIdSchema.optional(),
  live: z.enum(['true', 'false']).optional().openapi({ description: 'true: only grants neither revoked nor expired' }),
});

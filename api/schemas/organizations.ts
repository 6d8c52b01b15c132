import { AUTONOMY_PROFILES, DATA_RESIDENCY_TIERS, DEPLOYMENT_MODES } from '../../domain/common/organizations';
import { DidSchema, listQuerySchema } from './common';
import { z } from './zod';

const AUTONOMY_DESCRIPTION =
  'How far the organization lets agents act alone. balanced: a human takes over below 0.70 confidence (the Fourth Law). ' +
  'paranoid: below 0.85, and every high- or critical-risk task is at least hybrid (a human reviews). ' +
  'aggressive: below 0.60, never lower than the floor of 0.50; safety boundaries and escalation rules still apply.';

export const OrganizationSchema = z
  .object({
    organization_id: z.string().openapi({ example: 'org_0b6f4a52-3c1e-4d0e-9f3a-6f5d2b7c8e91' }),
    org_did: z.string(),
    name: z.string(),
    slug: z.string().nullable(),
    deployment_mode: z.enum(DEPLOYMENT_MODES),
    autonomy_profile: z.enum(AUTONOMY_PROFILES).openapi({ description: AUTONOMY_DESCRIPTION }),
    data_residency_tier: z.enum(DATA_RESIDENCY_TIERS),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .openapi('Organization');

export const CreateOrganizationSchema = z
  .object({
    org_did: DidSchema.max(500),
    name: z.string().trim().min(1).max(200),
    slug: z
      .string()
      .regex(
        /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/,
        'must be lower-case letters, digits and inner hyphens, at most 63 characters',
      )
      .optional(),
    deployment_mode: z.enum(DEPLOYMENT_MODES).default('cloud'),
    autonomy_profile: z.enum(AUTONOMY_PROFILES).default('balanced').openapi({ description: AUTONOMY_DESCRIPTION }),
    data_residency_tier: z.enum(DATA_RESIDENCY_TIERS).default('global'),
    administrator_email: z.email().max(320).optional().openapi({
      description:
        'The first administrator: they get an onboarding e-mail with a passkey enrollment link, and once enrolled are a signed-in person holding the organization’s administration',
    }),
  })
  .strict()
  .openapi('CreateOrganizationRequest');

export const ListOrganizationsQuerySchema = listQuerySchema;

export const OrganizationIdParamsSchema = z.object({ organization_id: z.string().min(1).max(200) });

import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import { insertOrganization, type OrganizationRow } from '../../db/organizations';
import { copySafetyDomains } from '../../db/safety';
import {
  DEFAULT_ORGANIZATION_ID,
  type AutonomyProfile,
  type DataResidencyTier,
  type DeploymentMode,
} from '../../domain/common/organizations';

export interface OrganizationRequest {
  org_did: string;
  name: string;
  slug?: string | undefined;
  deployment_mode: DeploymentMode;
  autonomy_profile: AutonomyProfile;
  data_residency_tier: DataResidencyTier;
}

export type CreateOrganizationOutcome =
  { ok: true; organization: OrganizationRow } | { ok: false; code: 'organization_exists' };

/** More to write in the organization's creating transaction (its first administrator's invitation); throw to undo it all. */
export type WithinCreation = (trx: Knex.Transaction, organization: OrganizationRow) => Promise<void>;

/**
 * Creates an organization, which starts with the deployment's baseline safety configuration (the default
 * organization's domains), so its routings are checked from the first one; an existing org_did or slug is refused.
 */
export async function createOrganization(
  db: Knex,
  request: OrganizationRequest,
  within?: WithinCreation,
): Promise<CreateOrganizationOutcome> {
  return db.transaction(async (trx) => {
    const organization = await insertOrganization(trx, {
      organization_id: `org_${randomUUID()}`,
      ...request,
      slug: request.slug ?? null,
    });
    if (!organization) return { ok: false, code: 'organization_exists' };
    await copySafetyDomains(trx, {
      from: DEFAULT_ORGANIZATION_ID,
      to: organization.organization_id,
      updatedBy: 'organization_created',
    });
    await within?.(trx, organization);
    return { ok: true, organization };
  });
}

import { listOrganizations } from '../../db/organizations';
import type { PageRequest } from '../../db/pagination';
import { organizationHealthFacts } from '../../db/organization-health';
import { organizationBucket, organizationChecks } from '../../domain/compliance/organization-health';
import { checkPlatform, type HealthDeps } from './platform-health';

/**
 * The health of a page of the deployment's organizations, for its operator: the platform checked once, and
 * each organization's own stuck or failing work, read in one query per table for the whole page.
 */
export async function organizationsHealth(deps: HealthDeps, page: PageRequest) {
  const [platform, organizations] = await Promise.all([checkPlatform(deps), listOrganizations(deps.db, page, {})]);
  const facts = await organizationHealthFacts(
    deps.db,
    organizations.data.map((organization) => organization.organization_id),
  );
  const data = organizations.data.map((organization) => {
    const checks = organizationChecks(facts.get(organization.organization_id)!);
    return {
      organization_id: organization.organization_id,
      org_did: organization.org_did,
      name: organization.name,
      bucket: organizationBucket(platform.bucket, checks),
      checks,
    };
  });
  return {
    ...organizations,
    data,
    platform: { status: platform.bucket, checks: platform.checks },
    checked_at: new Date().toISOString(),
  };
}

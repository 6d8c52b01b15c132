import type { Knex } from 'knex';
import type { AutonomyProfile, DataResidencyTier, DeploymentMode } from '../domain/common/organizations';
import { paginate, type Page, type PageRequest } from './pagination';

export interface OrganizationRow {
  organization_id: string;
  org_did: string;
  name: string;
  slug: string | null;
  deployment_mode: DeploymentMode;
  autonomy_profile: AutonomyProfile;
  data_residency_tier: DataResidencyTier;
  created_at: Date;
  updated_at: Date;
}

const COLUMNS = [
  'organization_id',
  'org_did',
  'name',
  'slug',
  'deployment_mode',
  'autonomy_profile',
  'data_residency_tier',
  'created_at',
  'updated_at',
];

export async function findOrganization(db: Knex, organizationId: string): Promise<OrganizationRow | undefined> {
  const row: unknown = await db('organizations').select(COLUMNS).where({ organization_id: organizationId }).first();
  return row as OrganizationRow | undefined;
}

/** undefined when the org_did or the slug is taken. */
export async function insertOrganization(
  db: Knex,
  organization: Omit<OrganizationRow, 'created_at' | 'updated_at'>,
): Promise<OrganizationRow | undefined> {
  const [row] = await db('organizations')
    .insert({ ...organization, created_at: db.fn.now(), updated_at: db.fn.now() })
    .onConflict()
    .ignore()
    .returning<OrganizationRow[]>(COLUMNS);
  return row;
}

/** All organizations, or only `only` (a caller without the deployment-admin scope sees its own). */
export async function listOrganizations(
  db: Knex,
  page: PageRequest,
  filter: { only?: string | undefined },
): Promise<Page<OrganizationRow>> {
  const query = db('organizations').select(COLUMNS);
  if (filter.only !== undefined) query.where({ organization_id: filter.only });
  return paginate<OrganizationRow>(query, page);
}

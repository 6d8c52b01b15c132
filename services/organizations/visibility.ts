import type { Knex } from 'knex';
import type { Page, PageRequest } from '../../db/pagination';
import { findOrganization, listOrganizations, type OrganizationRow } from '../../db/organizations';
import { grants, type Principal } from '../identity/scopes';

/** The deployment administrator's scope: whoever holds it sees (and creates) every organization. */
export const DEPLOYMENT_ADMIN = 'cloud:admin:global';

const seesEveryOrganization = (principal: Principal) => grants(principal.scopes, DEPLOYMENT_ADMIN);

/** One page of the organizations the caller sees: its own, or every one for the deployment administrator. */
export function listVisibleOrganizations(
  db: Knex,
  principal: Principal,
  page: PageRequest,
): Promise<Page<OrganizationRow>> {
  const only = seesEveryOrganization(principal) ? undefined : principal.organization_id;
  return listOrganizations(db, page, { only });
}

/**
 * The organization when the caller sees it; undefined for one it does not see, as for an unknown one, so that
 * another organization's existence is not disclosed.
 */
export async function readVisibleOrganization(
  db: Knex,
  principal: Principal,
  organizationId: string,
): Promise<OrganizationRow | undefined> {
  const visible = seesEveryOrganization(principal) || organizationId === principal.organization_id;
  return visible ? findOrganization(db, organizationId) : undefined;
}

import type { Knex } from 'knex';
import type { OrganizationRow } from '../../db/organizations';
import { createOrganization } from '../../services/organizations/organizations';
import {
  DEPLOYMENT_ADMIN,
  listVisibleOrganizations,
  readVisibleOrganization,
} from '../../services/organizations/visibility';
import { Problem } from '../problem';
import type { ApiBuilder } from '../route';
import { routeGroup, type RouteGroup } from '../route-group';
import {
  CreateOrganizationSchema,
  ListOrganizationsQuerySchema,
  OrganizationIdParamsSchema,
  OrganizationSchema,
} from '../schemas/organizations';

const SORTABLE = { created_at: 'created_at', name: 'name', slug: 'slug' };
const WHO_SEES_WHAT = `A caller sees its own organization; one holding ${DEPLOYMENT_ADMIN} (the deployment administrator) sees every organization.`;

const render = (row: OrganizationRow) => ({
  ...row,
  created_at: row.created_at.toISOString(),
  updated_at: row.updated_at.toISOString(),
});

/** Organizations: listed and read as far as the caller sees them, and created by the deployment administrator. */
export function registerOrganizationRoutes(api: ApiBuilder, deps: { db: Knex }): void {
  const organizations = routeGroup(api, { tags: ['Organizations'], auth: 'platform:read', rateLimit: 'default' });
  organizations.list({
    path: '/v1/organizations',
    operationId: 'listOrganizations',
    summary: 'List organizations',
    description: WHO_SEES_WHAT,
    query: ListOrganizationsQuerySchema,
    page: { description: 'A page of organizations', item: OrganizationSchema, name: 'OrganizationPage' },
    sort: { allowed: SORTABLE, fallback: 'created_at', uniqueKey: 'organization_id' },
    list: ({ principal, page }) => listVisibleOrganizations(deps.db, principal, page),
    view: render,
  });

  organizations.get({
    path: '/v1/organizations/{organization_id}',
    operationId: 'getOrganization',
    summary: 'Read an organization',
    description: `${WHO_SEES_WHAT} Another organization's id answers 404, as an unknown one does.`,
    params: OrganizationIdParamsSchema,
    found: { description: 'The organization', schema: OrganizationSchema },
    missing: {
      code: 'organization_not_found',
      description: 'No such organization',
      detail: ({ params }) => `No organization ${params.organization_id}`,
    },
    find: ({ params, principal }) => readVisibleOrganization(deps.db, principal, params.organization_id),
    view: render,
  });

  registerCreateOrganization(organizations, deps.db);
}

function registerCreateOrganization(organizations: RouteGroup, db: Knex): void {
  organizations.route({
    method: 'post',
    path: '/v1/organizations',
    operationId: 'createOrganization',
    summary: 'Create an organization (deployment administrator)',
    description:
      `Needs ${DEPLOYMENT_ADMIN}. Defaults: deployment_mode cloud, autonomy_profile balanced, data_residency_tier global. ` +
      'The organization starts with the deployment’s baseline safety configuration (the default organization’s domains). ' +
      'Credentials are then issued in it (service accounts created by its administrators, npm run token -- --organization).',
    auth: DEPLOYMENT_ADMIN,
    request: { body: CreateOrganizationSchema },
    responses: {
      201: {
        description: 'The organization',
        schema: OrganizationSchema,
        headers: { Location: { description: 'The organization’s URL' } },
      },
      409: { description: 'The org_did or the slug belongs to another organization' },
    },
    handler: async ({ body }) => {
      const outcome = await createOrganization(db, body);
      if (!outcome.ok)
        throw new Problem(
          'organization_exists',
          `An organization already has the org_did ${body.org_did}${body.slug ? ` or the slug ${body.slug}` : ''}`,
        );
      const organization = render(outcome.organization);
      return {
        status: 201,
        body: organization,
        headers: { Location: `/v1/organizations/${organization.organization_id}` },
      };
    },
  });
}

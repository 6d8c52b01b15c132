import type { Knex } from 'knex';
import { findOrganization, listOrganizations, type OrganizationRow } from '../../db/organizations';
import { createOrganization } from '../../services/organizations/organizations';
import { grants } from '../../services/identity/scopes';
import { listRoute } from '../list-route';
import { Problem } from '../problem';
import type { ApiBuilder } from '../route';
import {
  CreateOrganizationSchema,
  ListOrganizationsQuerySchema,
  OrganizationIdParamsSchema,
  OrganizationSchema,
} from '../schemas/organizations';

const SORTABLE = { created_at: 'created_at', name: 'name', slug: 'slug' };
const DEPLOYMENT_ADMIN = 'cloud:admin:global';
const WHO_SEES_WHAT = `A caller sees its own organization; one holding ${DEPLOYMENT_ADMIN} (the deployment administrator) sees every organization.`;

const render = (row: OrganizationRow) => ({
  ...row,
  created_at: row.created_at.toISOString(),
  updated_at: row.updated_at.toISOString(),
});

export function registerOrganizationRoutes(api: ApiBuilder, deps: { db: Knex }): void {
  listRoute(api, {
    path: '/v1/organizations',
    operationId: 'listOrganizations',
    summary: 'List organizations',
    description: WHO_SEES_WHAT,
    tags: ['Organizations'],
    auth: 'platform:read',
    rateLimit: 'default',
    query: ListOrganizationsQuerySchema,
    page: { description: 'A page of organizations', item: OrganizationSchema, name: 'OrganizationPage' },
    sort: { allowed: SORTABLE, fallback: 'created_at', uniqueKey: 'organization_id' },
    list: ({ principal, page }) => {
      const only = grants(principal.scopes, DEPLOYMENT_ADMIN) ? undefined : principal.organization_id;
      return listOrganizations(deps.db, page, { only });
    },
    view: render,
  });

  api.route({
    method: 'get',
    path: '/v1/organizations/{organization_id}',
    operationId: 'getOrganization',
    summary: 'Read an organization',
    description: `${WHO_SEES_WHAT} Another organization's id answers 404, as an unknown one does.`,
    tags: ['Organizations'],
    auth: 'platform:read',
    rateLimit: 'default',
    request: { params: OrganizationIdParamsSchema },
    responses: {
      200: { description: 'The organization', schema: OrganizationSchema },
      404: { description: 'No such organization' },
    },
    handler: async ({ params, principal }) => {
      const visible =
        grants(principal.scopes, DEPLOYMENT_ADMIN) || params.organization_id === principal.organization_id;
      const organization = visible ? await findOrganization(deps.db, params.organization_id) : undefined;
      if (!organization) throw new Problem('organization_not_found', `No organization ${params.organization_id}`);
      return { status: 200, body: render(organization) };
    },
  });

  api.route({
    method: 'post',
    path: '/v1/organizations',
    operationId: 'createOrganization',
    summary: 'Create an organization (deployment administrator)',
    description:
      `Needs ${DEPLOYMENT_ADMIN}. Defaults: deployment_mode cloud, autonomy_profile balanced, data_residency_tier global. ` +
      'The organization starts with the deployment’s baseline safety configuration (the default organization’s domains). ' +
      'Credentials are then issued in it (service accounts created by its administrators, npm run token -- --organization).',
    tags: ['Organizations'],
    auth: DEPLOYMENT_ADMIN,
    rateLimit: 'default',
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
      const outcome = await createOrganization(deps.db, body);
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

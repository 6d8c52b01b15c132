import type { OrganizationRow } from '../../db/organizations';
import { createOrganizationWithAdministrator } from '../../services/people/organizations';
import type { PeopleDeps } from '../../services/people/settings';
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
import { EmployeeSchema, employeeView } from '../schemas/employees';

const CreatedOrganizationSchema = OrganizationSchema.extend({
  administrator: EmployeeSchema.nullable().openapi({
    description: 'The first administrator, invited; null when none was named',
  }),
}).openapi('CreatedOrganization');

const SORTABLE = { created_at: 'created_at', name: 'name', slug: 'slug' };
const WHO_SEES_WHAT = `A caller sees its own organization; one holding ${DEPLOYMENT_ADMIN} (the deployment administrator) sees every organization.`;

const render = (row: OrganizationRow) => ({
  ...row,
  created_at: row.created_at.toISOString(),
  updated_at: row.updated_at.toISOString(),
});

/** Organizations: listed and read as far as the caller sees them, and created by the deployment administrator. */
export function registerOrganizationRoutes(api: ApiBuilder, deps: PeopleDeps): void {
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

  registerCreateOrganization(organizations, deps);
}

function registerCreateOrganization(organizations: RouteGroup, deps: PeopleDeps): void {
  organizations.route({
    method: 'post',
    path: '/v1/organizations',
    operationId: 'createOrganization',
    summary: 'Create an organization (deployment administrator)',
    description:
      `Needs ${DEPLOYMENT_ADMIN}. Defaults: deployment_mode cloud, autonomy_profile balanced, data_residency_tier global. ` +
      'The organization starts with the deployment’s baseline safety configuration (the default organization’s domains). ' +
      'administrator_email names its first administrator: in the same transaction, an administrator employee record and an onboarding ' +
      'e-mail with a passkey enrollment link (and the linking code); enrolled from it, they are a signed-in person holding the ' +
      'organization’s administration (its high-risk capabilities, deployment administration excepted). Without it, credentials are ' +
      'issued in it by npm run token -- --organization.',
    auth: DEPLOYMENT_ADMIN,
    request: { body: CreateOrganizationSchema },
    responses: {
      201: {
        description: 'The organization, and its first administrator’s invitation',
        schema: CreatedOrganizationSchema,
        headers: { Location: { description: 'The organization’s URL' } },
      },
      409: { description: 'The org_did or the slug belongs to another organization' },
      503: {
        description:
          'mail_unavailable or secrets_unavailable: the administrator cannot be invited, so nothing was created',
      },
    },
    handler: async ({ body, principal }) => {
      const outcome = await createOrganizationWithAdministrator(deps, principal, body);
      if (!outcome.ok)
        throw outcome.code === 'organization_exists'
          ? new Problem(
              'organization_exists',
              `An organization already has the org_did ${body.org_did}${body.slug ? ` or the slug ${body.slug}` : ''}`,
            )
          : new Problem(outcome.code, outcome.detail);
      const organization = render(outcome.organization);
      const administrator = outcome.administrator ? employeeView(outcome.administrator) : null;
      return {
        status: 201,
        body: { ...organization, administrator },
        headers: { Location: `/v1/organizations/${organization.organization_id}` },
      };
    },
  });
}

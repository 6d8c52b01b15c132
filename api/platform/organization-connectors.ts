import type { Knex } from 'knex';
import {
  findOrganizationConnector,
  listOrganizationConnectors,
  ORGANIZATION_CONNECTOR_SORTABLE,
  organizationConnectorFromRow,
  type OrganizationConnectorRow,
} from '../../db/organization-connectors';
import {
  createOrganizationConnector,
  type OrganizationConnectorRefusal,
} from '../../services/organization-connectors/connectors';
import { Problem } from '../problem';
import type { ApiBuilder } from '../route';
import { routeGroup } from '../route-group';
import {
  CreateOrganizationConnectorSchema,
  ListOrganizationConnectorsQuerySchema,
  organizationConnector,
  OrganizationConnectorParamsSchema,
  OrganizationConnectorSchema,
} from '../schemas/organization-connectors';

function refused(outcome: OrganizationConnectorRefusal): never {
  if (outcome.code === 'validation_failed')
    throw new Problem('validation_failed', 'The configuration does not fit the connector type', {
      errors: outcome.errors,
    });
  throw new Problem(outcome.code, outcome.detail);
}

const view = (row: OrganizationConnectorRow) => organizationConnector.of(organizationConnectorFromRow(row));

/** An organization's own connectors: list, create (configuration checked per type), read. */
export function registerOrganizationConnectorRoutes(api: ApiBuilder, deps: { db: Knex }): void {
  const connectors = routeGroup(api, { tags: ['Connectors'], auth: 'platform:read', rateLimit: 'default' });
  connectors.list({
    path: '/v1/connectors',
    operationId: 'listOrganizationConnectors',
    summary: 'List your organization’s connectors',
    description:
      'Oldest first by default. A marketplace connector shows inactive while its installation is not active.',
    query: ListOrganizationConnectorsQuerySchema,
    page: { description: 'A page of connectors', item: OrganizationConnectorSchema, name: 'OrganizationConnectorPage' },
    sort: { allowed: ORGANIZATION_CONNECTOR_SORTABLE, fallback: 'created_at', uniqueKey: 'connector_id' },
    list: ({ query, principal, page }) =>
      listOrganizationConnectors(deps.db, principal.organization_id, page, {
        connector_type: query.connectorType,
        status: query.status,
      }),
    view,
  });
  connectors.route({
    method: 'post',
    path: '/v1/connectors',
    operationId: 'createOrganizationConnector',
    summary: 'Create a connector for your organization',
    description:
      'The configuration is checked against connectorType’s schema (errors name configuration.<field>). An Idempotency-Key makes a retry ' +
      'answer the first connector.',
    auth: 'platform:admin',
    request: { body: CreateOrganizationConnectorSchema },
    responses: {
      201: {
        description: 'The connector',
        schema: OrganizationConnectorSchema,
        headers: { Location: { description: 'The connector’s URL' } },
      },
      400: { description: 'validation_failed: the configuration does not fit the type' },
      404: { description: 'organization_not_found: orgId is not your organization' },
      409: { description: 'organization_connector_exists: the name is taken in your organization' },
      422: { description: 'installation_not_usable: a marketplace connector needs an active installation of yours' },
    },
    handler: async ({ req, body, principal }) => {
      const outcome = await createOrganizationConnector(deps.db, principal, body, req.get('idempotency-key'));
      if (!outcome.ok) refused(outcome);
      return {
        status: 201,
        body: organizationConnector.of(outcome.connector),
        headers: { Location: `/v1/connectors/${outcome.connector.connector_id}` },
      };
    },
  });
  connectors.get({
    path: '/v1/connectors/{connector_id}',
    operationId: 'getOrganizationConnector',
    summary: 'Read one of your organization’s connectors',
    description: 'Another organization’s connector answers 404, as an unknown one does.',
    params: OrganizationConnectorParamsSchema,
    found: { description: 'The connector', schema: OrganizationConnectorSchema },
    missing: { code: 'organization_connector_not_found' },
    find: ({ params, principal }) => findOrganizationConnector(deps.db, principal.organization_id, params.connector_id),
    view,
  });
}

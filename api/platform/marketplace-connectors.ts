import { connectorWithStatistics, registerConnector, searchCatalog } from '../../services/connectors/catalog';
import type { ConnectorDeps } from '../../services/connectors/settings';
import { Problem } from '../problem';
import type { ApiBuilder } from '../route';
import {
  ConnectorDetailSchema,
  connectorDetail,
  ConnectorIdParamsSchema,
  ConnectorListItemSchema,
  connectorListItem,
  RegisterConnectorSchema,
  SearchConnectorsQuerySchema,
} from '../schemas/connectors';
import { pageSchema } from '../schemas/common';
import { withCursorProblems } from '../middleware/pagination';

const TAGS = ['Marketplace'];

/** The connector catalog: public search and detail, and the deployment administrator's registration. */
export function registerMarketplaceConnectorRoutes(api: ApiBuilder, deps: ConnectorDeps): void {
  api.route({
    method: 'get',
    path: '/v1/marketplace/connectors',
    operationId: 'searchConnectors',
    summary: 'Search the connector catalog',
    description:
      'Public. With query, full-text search over name, provider and description (PostgreSQL, GIN-indexed), best match first; ' +
      'without, newest first. Filters combine. install_count, rating_average and rating_count are computed from installations and ratings.',
    tags: TAGS,
    auth: 'public',
    rateLimit: 'default',
    request: { query: SearchConnectorsQuerySchema },
    responses: {
      200: {
        description: 'A page of connectors',
        schema: pageSchema(ConnectorListItemSchema, 'MarketplaceConnectorPage'),
      },
    },
    handler: async ({ query }) => {
      const { limit, cursor, ...filters } = query;
      const found = await withCursorProblems(searchCatalog(deps, filters, { limit, cursor }));
      return {
        status: 200,
        body: { ...found, data: found.data.map(({ row, figures }) => connectorListItem(row, figures)) },
      };
    },
  });

  api.route({
    method: 'get',
    path: '/v1/marketplace/connectors/{connector_id}',
    operationId: 'getConnector',
    summary: 'Read a connector',
    description:
      'Public. statistics are computed from installations, ratings and the last 30 days of recorded invocations.',
    tags: TAGS,
    auth: 'public',
    rateLimit: 'default',
    request: { params: ConnectorIdParamsSchema },
    responses: {
      200: { description: 'The connector', schema: ConnectorDetailSchema },
      404: { description: 'connector_not_found' },
    },
    handler: async ({ params }) => {
      const found = await connectorWithStatistics(deps, params.connector_id);
      if (!found) throw new Problem('connector_not_found', `No connector ${params.connector_id}`);
      return { status: 200, body: connectorDetail(found.row, found.figures) };
    },
  });

  api.route({
    method: 'put',
    path: '/v1/marketplace/connectors/{connector_id}',
    operationId: 'registerConnector',
    summary: 'Add a connector to the catalog, or replace its entry',
    description:
      'For the deployment’s administrators (cloud:admin:global). An OAuth connector names its provider’s authorization, token and ' +
      '(RFC 7009) revocation endpoints and this deployment’s client; the client secret is sealed at rest and never shown. ' +
      'The provider must accept <PUBLIC_BASE_URL>/v1/oauth/callback as a redirect URI.',
    tags: TAGS,
    auth: 'cloud:admin:global',
    rateLimit: 'default',
    request: { params: ConnectorIdParamsSchema, body: RegisterConnectorSchema },
    responses: { 200: { description: 'The connector as the catalog shows it', schema: ConnectorDetailSchema } },
    handler: async ({ params, body }) => {
      const outcome = await registerConnector(deps, params.connector_id, body);
      if (!outcome.ok)
        throw new Problem('invalid_connector', outcome.detail, {
          errors: [{ field: outcome.field, code: 'invalid', message: outcome.detail }],
        });
      const found = await connectorWithStatistics(deps, params.connector_id);
      return { status: 200, body: connectorDetail(found!.row, found!.figures) };
    },
  });
}

import type { Knex } from 'knex';
import { connectorRatings, rateConnector } from '../../services/connectors/ratings';
import { withCursorProblems } from '../middleware/pagination';
import { Problem } from '../problem';
import type { ApiBuilder } from '../route';
import { ConnectorIdParamsSchema } from '../schemas/connectors';
import {
  ListRatingsQuerySchema,
  RateConnectorSchema,
  RatingPageSchema,
  RatingSchema,
  ratingView,
} from '../schemas/ratings';

/** Ratings of a connector: by an organization through its active installation, read by anyone. */
export function registerRatingRoutes(api: ApiBuilder, deps: { db: Knex }): void {
  api.route({
    method: 'post',
    path: '/v1/marketplace/connectors/{connector_id}/ratings',
    operationId: 'rateConnector',
    summary: 'Rate a connector your organization has installed',
    description:
      'Only through an active installation of the connector in your organization (installation_id); one rating per installation: ' +
      'rating again replaces it (200, same rating_id).',
    tags: ['Marketplace'],
    auth: 'platform:write',
    rateLimit: 'default',
    request: { params: ConnectorIdParamsSchema, body: RateConnectorSchema },
    responses: {
      200: { description: 'The installation’s rating, replaced', schema: RatingSchema },
      201: { description: 'The installation’s rating', schema: RatingSchema },
      403: {
        description:
          'installation_not_verified: installation_id is not an active installation of this connector in your organization',
      },
      404: { description: 'connector_not_found' },
    },
    handler: async ({ params, body, principal }) => {
      const outcome = await rateConnector(deps.db, principal, params.connector_id, body);
      if (!outcome.ok) throw new Problem(outcome.code, outcome.detail);
      return { status: outcome.created ? 201 : 200, body: ratingView(outcome.rating) };
    },
  });

  api.route({
    method: 'get',
    path: '/v1/marketplace/connectors/{connector_id}/ratings',
    operationId: 'listConnectorRatings',
    summary: 'A connector’s ratings and their summary',
    description: 'Public. Newest first; summary covers every rating (average, count, distribution by stars).',
    tags: ['Marketplace'],
    auth: 'public',
    rateLimit: 'default',
    request: { params: ConnectorIdParamsSchema, query: ListRatingsQuerySchema },
    responses: {
      200: { description: 'A page of ratings with the summary', schema: RatingPageSchema },
      404: { description: 'connector_not_found' },
    },
    handler: async ({ params, query }) => {
      const page = {
        limit: query.limit,
        cursor: query.cursor,
        sort: [
          { column: 'updated_at', direction: 'desc' as const },
          { column: 'rating_id', direction: 'desc' as const },
        ],
      };
      const found = await withCursorProblems(connectorRatings(deps.db, params.connector_id, page));
      if (!found) throw new Problem('connector_not_found', `No connector ${params.connector_id}`);
      return { status: 200, body: { ...found, data: found.data.map(ratingView) } };
    },
  });
}

import { Connector, ConnectorOAuth, ConnectorOAuthClient } from '../../contracts/aggregates/connector';
import { DEPLOYMENT_MODES, PRICING_MODELS } from '../../domain/marketplace/connectors';
import type { ConnectorFigures } from '../../db/connectors';
import { CONNECTOR_HEALTH_STATUSES, HEALTH_WINDOW_HOURS } from '../../domain/marketplace/health';
import { z } from './zod';

const connector = Connector.shape;
const iso = (date: Date | null) => (date ? date.toISOString() : null);

/** The list item (the spec's Style A item): the catalog's fields and the figures computed from real use. */
export const ConnectorListItemSchema = z
  .object({
    connector_id: connector.connector_id,
    name: connector.name,
    provider: connector.provider,
    description: connector.description,
    version: connector.version,
    publisher_id: connector.publisher_id,
    certified: connector.certified,
    pricing_model: connector.pricing_model,
    capabilities: connector.capabilities,
    install_count: z
      .number()
      .int()
      .openapi({ description: 'Installations that are active, suspended or need re-authorization' }),
    rating_average: z.number().nullable().openapi({ description: 'Null until the connector is rated' }),
    rating_count: z.number().int(),
    oauth: ConnectorOAuth.nullable().meta({ description: 'Null: installs need no provider consent' }),
    deployment_modes: connector.deployment_modes,
    health_status: z.enum(CONNECTOR_HEALTH_STATUSES).openapi({
      description:
        `Read from the calls its installations recorded in the last ${HEALTH_WINDOW_HOURS} hours, one vote per installation: ` +
        'degraded when half or more of them had half or more of their calls fail, unknown when none called it',
    }),
    created_at: z.string(),
  })
  .openapi('MarketplaceConnector');

// A whole object, not an extension: the document then describes every property, as the list item does.
export const ConnectorDetailSchema = z
  .object({
    ...ConnectorListItemSchema.shape,
    long_description: connector.long_description,
    publisher: z.object({ publisher_id: z.string(), name: z.string(), verified: z.boolean() }),
    configuration_schema: connector.configuration_schema.meta({
      description: 'JSON Schema an installation’s config must fit (checked with ajv at install and update)',
    }),
    last_health_check_at: z.string().nullable().openapi({
      description: 'When the last recorded call (within 30 days) was, which health_status reads; null: none',
    }),
    statistics: z.object({
      install_count: z.number().int(),
      rating_average: z.number().nullable(),
      rating_count: z.number().int(),
      invocation_count_30d: z.number().int(),
    }),
    updated_at: z.string(),
  })
  .openapi('MarketplaceConnectorDetail');

export function connectorListItem(row: Connector, figures: ConnectorFigures): z.output<typeof ConnectorListItemSchema> {
  return {
    connector_id: row.connector_id,
    name: row.name,
    provider: row.provider,
    description: row.description,
    version: row.version,
    publisher_id: row.publisher_id,
    certified: row.certified,
    pricing_model: row.pricing_model,
    capabilities: row.capabilities,
    install_count: figures.install_count,
    rating_average: figures.rating_average,
    rating_count: figures.rating_count,
    oauth: row.oauth,
    deployment_modes: row.deployment_modes,
    health_status: figures.health.health_status,
    created_at: row.created_at.toISOString(),
  };
}

export function connectorDetail(row: Connector, figures: ConnectorFigures): z.output<typeof ConnectorDetailSchema> {
  return {
    ...connectorListItem(row, figures),
    long_description: row.long_description,
    publisher: { publisher_id: row.publisher_id, name: row.publisher_name, verified: row.publisher_verified },
    configuration_schema: row.configuration_schema,
    last_health_check_at: iso(figures.health.last_health_check_at),
    statistics: {
      install_count: figures.install_count,
      rating_average: figures.rating_average,
      rating_count: figures.rating_count,
      invocation_count_30d: figures.invocation_count_30d,
    },
    updated_at: row.updated_at.toISOString(),
  };
}

export const SearchConnectorsQuerySchema = z.object({
  query: z
    .string()
    .max(200)
    .optional()
    .openapi({ description: 'Words matched on name, provider and description (full-text, ranked)' }),
  provider: z.string().max(200).optional(),
  certified: z
    .enum(['true', 'false'])
    .transform((value) => value === 'true')
    .optional(),
  pricing_model: z.enum(PRICING_MODELS).optional(),
  capability: z.string().max(200).optional().openapi({ description: 'A capability id the connector must offer' }),
  limit: z.coerce.number().int().min(1).max(100).default(20),
  cursor: z.string().min(1).optional(),
});

export const ConnectorIdParamsSchema = z.object({
  connector_id: z
    .string()
    .regex(/^[a-z0-9][a-z0-9._-]{0,99}$/, 'must be a connector id (lower-case letters, digits, . _ -)'),
});

/** What the deployment's administrator registers: the catalog entry, and for OAuth how to reach the provider. */
export const RegisterConnectorSchema = z
  .object({
    name: z.string().min(1).max(200),
    provider: z.string().min(1).max(200),
    description: z.string().min(1).max(2000),
    long_description: z.string().max(20_000).optional(),
    version: z.string().regex(/^\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?(?:\+[0-9A-Za-z.-]+)?$/, 'must be a semantic version'),
    publisher: z.object({
      publisher_id: z.string().min(1).max(200),
      name: z.string().min(1).max(200),
      verified: z.boolean().default(false),
    }),
    certified: z.boolean().default(false),
    pricing_model: z.enum(PRICING_MODELS),
    capabilities: z.array(z.string().min(1).max(200)).max(100).default([]),
    deployment_modes: z.array(z.enum(DEPLOYMENT_MODES)).min(1),
    configuration_schema: z.record(z.string(), z.unknown()).default({}),
    oauth: ConnectorOAuth.optional(),
    oauth_client: ConnectorOAuthClient.omit({ client_secret_sealed: true })
      .extend({ client_secret: z.string().min(1).max(2000).optional() })
      .optional()
      .meta({
        description:
          'Required with oauth.required: the provider’s endpoints and this deployment’s client. Never shown.',
      }),
  })
  .strict()
  .openapi('RegisterConnectorRequest');

import { z } from 'zod';
import { DEPLOYMENT_MODES, PRICING_MODELS } from '../../domain/marketplace/connectors';

const JsonObject = z.record(z.string(), z.unknown());

/** What the catalog shows of a connector's OAuth: whether installs go through consent, and the scopes one may grant. */
export const ConnectorOAuth = z.object({ required: z.boolean(), scopes: z.array(z.string()) });

/**
 * How this deployment talks to the connector's provider: never shown. The client secret is sealed
 * (lib/secret-box.ts, bound to the connector id); the revocation endpoint (RFC 7009) is optional.
 */
export const ConnectorOAuthClient = z.object({
  authorization_endpoint: z.string(),
  token_endpoint: z.string(),
  revocation_endpoint: z.string().optional(),
  client_id: z.string(),
  client_secret_sealed: z.string().optional(),
});
export type ConnectorOAuthClient = z.infer<typeof ConnectorOAuthClient>;

/**
 * A connector in the marketplace catalog, as the marketplace_connectors table stores it (db/connectors.ts)
 * and the API shows it (api/schemas/connectors.ts), in the order the detail shows its fields.
 */
export const Connector = z.object({
  connector_id: z.string(),
  name: z.string(),
  provider: z.string(),
  description: z.string(),
  version: z.string(),
  publisher_id: z.string(),
  certified: z.boolean(),
  pricing_model: z.enum(PRICING_MODELS),
  capabilities: z.array(z.string()),
  oauth: ConnectorOAuth.nullable(),
  deployment_modes: z.array(z.enum(DEPLOYMENT_MODES)),
  created_at: z.date(),
  long_description: z.string().nullable(),
  publisher_name: z.string(),
  publisher_verified: z.boolean(),
  oauth_client: ConnectorOAuthClient.nullable(),
  configuration_schema: JsonObject,
  updated_at: z.date(),
});
export type Connector = z.infer<typeof Connector>;

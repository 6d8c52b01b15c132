import {
  connectorStatistics,
  findConnector,
  searchConnectors,
  upsertConnector,
  type ConnectorFilters,
} from '../../db/connectors';
import type { Connector, ConnectorOAuthClient } from '../../contracts/aggregates/connector';
import type { DeploymentMode, PricingModel } from '../../domain/marketplace/connectors';
import { createOutboundGuard } from '../../lib/outbound/url-guard';
import { createSecretBox } from '../../lib/secret-box';
import { schemaRefusal } from './configuration';
import type { ConnectorDeps } from './settings';

export interface ConnectorRegistration {
  name: string;
  provider: string;
  description: string;
  long_description?: string | undefined;
  version: string;
  publisher: { publisher_id: string; name: string; verified: boolean };
  certified: boolean;
  pricing_model: PricingModel;
  capabilities: string[];
  deployment_modes: DeploymentMode[];
  configuration_schema: Record<string, unknown>;
  oauth?: { required: boolean; scopes: string[] } | undefined;
  oauth_client?:
    (Omit<ConnectorOAuthClient, 'client_secret_sealed'> & { client_secret?: string | undefined }) | undefined;
}

export type RegisterOutcome = { ok: true; connector: Connector } | { ok: false; field: string; detail: string };

/**
 * Adds a connector to the catalog (or replaces its entry): its configuration_schema must compile, an OAuth
 * connector needs its provider's endpoints, each one the outbound policy lets this deployment call, and its
 * client secret is sealed.
 */
export async function registerConnector(
  deps: ConnectorDeps,
  connectorId: string,
  body: ConnectorRegistration,
): Promise<RegisterOutcome> {
  const refusal = schemaRefusal(body.configuration_schema);
  if (refusal) return { ok: false, field: 'configuration_schema', detail: `configuration_schema ${refusal}` };
  if (body.oauth?.required && !body.oauth_client)
    return { ok: false, field: 'oauth_client', detail: 'A connector whose installs need OAuth needs oauth_client' };
  const client = body.oauth_client;
  if (client) {
    const guard = createOutboundGuard(deps.settings.outbound.policy);
    for (const field of ['authorization_endpoint', 'token_endpoint', 'revocation_endpoint'] as const) {
      const url = client[field];
      const checked = url === undefined ? undefined : await guard.check(url);
      if (checked && !checked.ok)
        return { ok: false, field: `oauth_client.${field}`, detail: `${field} ${checked.reason}` };
    }
  }
  const { client_secret, ...clientFields } = client ?? { client_secret: undefined };
  const box = createSecretBox(deps.settings.secretKeys);
  const connector = await upsertConnector(deps.db, {
    connector_id: connectorId,
    name: body.name,
    provider: body.provider,
    description: body.description,
    long_description: body.long_description ?? null,
    version: body.version,
    publisher_id: body.publisher.publisher_id,
    publisher_name: body.publisher.name,
    publisher_verified: body.publisher.verified,
    certified: body.certified,
    pricing_model: body.pricing_model,
    capabilities: body.capabilities,
    oauth: body.oauth ?? null,
    oauth_client: client
      ? {
          ...(clientFields as ConnectorOAuthClient),
          ...(client_secret ? { client_secret_sealed: box.seal(client_secret, connectorId) } : {}),
        }
      : null,
    deployment_modes: body.deployment_modes,
    configuration_schema: body.configuration_schema,
  });
  return { ok: true, connector };
}

/** A page of the catalog, each connector with its figures. */
export async function searchCatalog(
  deps: ConnectorDeps,
  filters: ConnectorFilters,
  page: { limit: number; cursor?: string | undefined },
) {
  const found = await searchConnectors(deps.db, filters, page);
  const figures = await connectorStatistics(
    deps.db,
    found.data.map((row) => row.connector_id),
  );
  return { ...found, data: found.data.map((row) => ({ row, figures: figures.get(row.connector_id)! })) };
}

export async function connectorWithStatistics(deps: ConnectorDeps, connectorId: string) {
  const row = await findConnector(deps.db, connectorId);
  if (!row) return undefined;
  const figures = await connectorStatistics(deps.db, [connectorId]);
  return { row, figures: figures.get(connectorId)! };
}

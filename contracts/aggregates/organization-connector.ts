import { z } from 'zod';
import { ORGANIZATION_CONNECTOR_TYPES } from '../../domain/marketplace/organization-connectors';

export const ORGANIZATION_CONNECTOR_STATUSES = ['active', 'inactive'] as const;

/**
 * An organization's own connector: a named link to a system its agents use (a webhook, a REST API, a
 * database, a mail sender, or one of its marketplace installations), its configuration checked against its
 * type (services/organization-connectors/configuration.ts). Credentials are never part of the configuration: a
 * `marketplace` connector reaches its provider through the installation's sealed tokens. A `marketplace`
 * connector is active only while its installation is. Stored by db/organization-connectors.ts; the view and
 * the OpenAPI component come from this schema.
 */
export const OrganizationConnector = z
  .object({
    connector_id: z.string().meta({ description: 'occ_…' }),
    organization_id: z.string(),
    name: z.string().meta({ description: 'connectorName at creation; unique in the organization' }),
    connector_type: z.enum(ORGANIZATION_CONNECTOR_TYPES),
    configuration: z.record(z.string(), z.unknown()),
    capabilities: z.array(z.string()).meta({
      description: 'What the connector does: its type’s, or for marketplace the connector’s own capabilities',
    }),
    status: z.enum(ORGANIZATION_CONNECTOR_STATUSES).meta({
      description: 'inactive: a marketplace connector whose installation is not active (suspended, needs_reauth…)',
    }),
    installation_id: z.string().optional().meta({ description: 'The marketplace installation (type marketplace)' }),
    created_by: z.string(),
    created_at: z.iso.datetime(),
    updated_at: z.iso.datetime(),
  })
  .meta({ description: 'An organization’s connector' });
export type OrganizationConnector = z.infer<typeof OrganizationConnector>;

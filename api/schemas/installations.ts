import { Installation } from '../../contracts/aggregates/installation';
import type { InstallationListed } from '../../db/installations';
import { DEPLOYMENT_MODES, INSTALLATION_STATUSES } from '../../domain/marketplace/connectors';
import { HEALTH_STATUSES, HEALTH_WINDOW_HOURS, installationHealth } from '../../domain/marketplace/health';
import { listQuerySchema } from './common';
import { z } from './zod';

const installation = Installation.shape;
const iso = (date: Date | null) => (date ? new Date(date).toISOString() : null);

export const InstallConnectorSchema = z
  .object({
    deployment_mode: z.enum(DEPLOYMENT_MODES),
    config: z
      .record(z.string(), z.unknown())
      .default({})
      .openapi({ description: 'Checked against the connector’s configuration_schema' }),
    granted_permissions: z
      .array(z.string().min(1).max(200))
      .max(100)
      .openapi({ description: 'Each one of the connector’s oauth.scopes' }),
  })
  .strict()
  .openapi('InstallConnectorRequest');

export const InstalledSchema = z
  .object({
    installation_id: installation.installation_id,
    connector_id: installation.connector_id,
    status: installation.status,
    oauth_state: z
      .string()
      .nullable()
      .openapi({ description: 'With pending_oauth: the state the authorization URL carries (single use)' }),
    authorization_url: z.string().nullable().openapi({
      description:
        'With pending_oauth: the provider’s consent page (authorization code with PKCE S256). Open it, or send it by mail or chat: it works until expires_at, once',
    }),
    expires_at: z.string().nullable(),
  })
  .openapi('ConnectorInstallResult');

/** The spec's Installation, with the status's reason and the pending attempt's deadline beside it. */
export const InstallationSchema = z
  .object({
    installation_id: installation.installation_id,
    connector: z.object({ connector_id: z.string(), name: z.string(), provider: z.string() }),
    status: installation.status,
    status_reason: installation.status_reason,
    deployment_mode: installation.deployment_mode,
    config: installation.config,
    granted_permissions: installation.granted_permissions,
    health_status: z.enum(HEALTH_STATUSES).openapi({
      description:
        `disconnected in needs_reauth or authorization_failed; when active, read from its calls of the last ${HEALTH_WINDOW_HOURS} ` +
        'hours: degraded when half or more failed, healthy otherwise; unknown without calls or while not active',
    }),
    installed_by: installation.installed_by,
    installed_at: z.string(),
    last_invocation_at: z.string().nullable(),
    invocation_count_30d: z.number().int(),
    oauth_expires_at: z.string().nullable(),
    uninstalled_at: z.string().nullable(),
    updated_at: z.string(),
  })
  .openapi('Installation');

export function installationView(row: InstallationListed): z.output<typeof InstallationSchema> {
  return {
    installation_id: row.installation_id,
    connector: row.connector,
    status: row.status,
    status_reason: row.status_reason,
    deployment_mode: row.deployment_mode,
    config: row.config,
    granted_permissions: row.granted_permissions,
    health_status: installationHealth(row.status, row.recorded_calls),
    installed_by: row.installed_by,
    installed_at: iso(row.installed_at)!,
    last_invocation_at: iso(row.last_invocation_at),
    invocation_count_30d: row.invocation_count_30d,
    oauth_expires_at: iso(row.oauth_expires_at),
    uninstalled_at: iso(row.uninstalled_at),
    updated_at: iso(row.updated_at)!,
  };
}

export const ListInstallationsQuerySchema = listQuerySchema.extend({
  status: z.enum(INSTALLATION_STATUSES).optional(),
});

export const INSTALLATION_SORTABLE = { installed_at: 'installed_at', updated_at: 'updated_at', status: 'status' };

export const UpdateInstallationSchema = z
  .object({
    status: z.enum(['active', 'suspended']).optional(),
    config: z
      .record(z.string(), z.unknown())
      .optional()
      .openapi({ description: 'Replaces the config; checked against the connector’s configuration_schema' }),
  })
  .strict()
  .openapi('UpdateInstallationRequest');

export const UpdatedInstallationSchema = z
  .object({
    installation_id: z.string(),
    status: installation.status,
    config: installation.config,
    updated_at: z.string(),
  })
  .openapi('UpdatedInstallation');

export const UninstalledSchema = z
  .object({ connector_id: z.string(), status: z.literal('uninstalled'), uninstalled_at: z.string() })
  .openapi('UninstalledConnector');

export const InstallationIdParamsSchema = z.object({
  installation_id: z.string().regex(/^ins_[0-9a-f-]{36}$/, 'must be an installation id (ins_…)'),
});

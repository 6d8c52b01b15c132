import type { Installation } from '../../contracts/aggregates/installation';
import type { InstallationStatus } from '../../domain/marketplace/connectors';
import { callbackUrl, type ConnectorSettings } from './settings';

/** Statuses a person ends only by going through the provider's consent again. */
const DISCONNECTED: readonly InstallationStatus[] = ['needs_reauth', 'authorization_failed'];

/** Where an installation is reconnected: its connector's install, which keeps the installation id. */
export function reconnectUrl(settings: Pick<ConnectorSettings, 'publicBaseUrl'>, connectorId: string): string {
  return new URL(
    `/v1/marketplace/connectors/${encodeURIComponent(connectorId)}/install`,
    callbackUrl(settings),
  ).toString();
}

/** The reconnect link of an installation, as its needs_reauth event carries it, with the body that repeats its install. */
export function reconnectLink(settings: Pick<ConnectorSettings, 'publicBaseUrl'>, installation: Installation) {
  return {
    installation_id: installation.installation_id,
    status: installation.status,
    needs_reconnect: DISCONNECTED.includes(installation.status),
    reconnect: {
      method: 'POST' as const,
      url: reconnectUrl(settings, installation.connector_id),
      body: {
        deployment_mode: installation.deployment_mode,
        config: installation.config,
        granted_permissions: installation.granted_permissions,
      },
    },
  };
}

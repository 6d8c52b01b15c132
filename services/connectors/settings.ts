import type { Client } from '@temporalio/client';
import type { Knex } from 'knex';
import type { OutboundPolicy } from '../../lib/outbound/url-guard';
import type { SecretKeys } from '../../lib/secret-box';

/** How installs and their provider tokens are handled; from the configuration (CONNECTOR_*). */
export interface ConnectorSettings {
  /** Where the provider sends the person back: `<publicBaseUrl>/v1/oauth/callback` must be registered with it. */
  publicBaseUrl: string;
  /** How long an authorization URL works (its state expires then, and the install ends as expired). */
  installTtlSeconds: number;
  /** An access token expiring within this many seconds is refreshed before it is handed out. */
  refreshAheadSeconds: number;
  /** Seal provider tokens, PKCE verifiers and client secrets at rest. */
  secretKeys: SecretKeys;
  /** Token, refresh and revocation calls to providers go through the outbound guard. */
  outbound: { policy: OutboundPolicy; timeoutMs: number };
}

export interface ConnectorDeps {
  db: Knex;
  settings: ConnectorSettings;
}

export interface InstallDeps extends ConnectorDeps {
  temporal: Client;
  taskQueue: string;
}

export const OAUTH_CALLBACK_PATH = '/v1/oauth/callback';

export function callbackUrl(settings: Pick<ConnectorSettings, 'publicBaseUrl'>): string {
  return new URL(OAUTH_CALLBACK_PATH, settings.publicBaseUrl).toString();
}

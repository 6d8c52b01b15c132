import type { TokenSettings } from '../services/identity/authentication/actor';
import type { OutboundPolicy } from '../lib/outbound/url-guard';
import type { SecretKeys } from '../lib/secret-box';
import type { WebhookSettings } from '../services/webhooks/settings';
import type { ConnectorSettings } from '../services/connectors/settings';
import type { LedgerSealerSettings } from '../contracts/seal-ledger';
import type { NotificationSettings } from '../services/notifications/settings';

/** What activities need beyond their connections; the worker builds them once from the config. */
export interface WorkerSettings {
  outbound: { policy: OutboundPolicy; timeoutMs: number };
  /** secretKeys: to seal the ledger key at start and open it to sign (SECRETS_ENCRYPTION_KEY). */
  ledger: { origin: string; sealer: LedgerSealerSettings; secretKeys: SecretKeys };
  platform: PlatformWorkerSettings;
  /** Workflows kept in the worker's cache; the SDK's default when undefined. */
  maxCachedWorkflows?: number | undefined;
  webhooks: WebhookSettings;
  /** The recovery code's key (SECRETS_ENCRYPTION_KEY) and the links in the mail. */
  recovery: { secretKeys: SecretKeys; publicBaseUrl: string };
  connectors: ConnectorSettings;
  /** Notifying reviewers: links, their TTL, the Slack webhook post. */
  notifications: NotificationSettings;
}

/** What the platform's activities need: where agents report progress, and how to sign its tokens. */
export interface PlatformWorkerSettings {
  publicBaseUrl: string;
  token: TokenSettings;
  agentResultLimitBytes: number;
  /** Open the sealed callback signing secrets. */
  secretKeys: SecretKeys;
}

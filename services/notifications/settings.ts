import type { OutboundPolicy } from '../../lib/outbound/url-guard';
import type { SecretKeys } from '../../lib/secret-box';

/** What notifying a reviewer and deciding by a link need, built once from the config (app/deps.ts). */
export interface NotificationSettings {
  /** Where links lead: the API's public origin. */
  publicBaseUrl: string;
  /** How long a link works (DECISION_LINK_TTL_SECONDS), never past the item's own deadline. */
  linkTtlSeconds: number;
  /** Opens the organizations' sealed Slack webhook URLs. */
  secretKeys: SecretKeys;
  /** The address guard and timeout of the Slack webhook post. */
  outbound: { policy: OutboundPolicy; timeoutMs: number };
  /** Verifies Slack's interactivity callbacks (SLACK_SIGNING_SECRET); unset: the callback refuses every request. */
  slackSigningSecret?: string | undefined;
}

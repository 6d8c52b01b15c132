import type { RetrySchedule } from '../../domain/webhooks/rules';
import type { OutboundPolicy } from '../../lib/outbound/url-guard';
import type { SecretKeys } from '../../lib/secret-box';

/** What the webhook API, the dispatcher and the deliveries read from the configuration. */
export interface WebhookSettings {
  secretKeys: SecretKeys;
  retrySchedule: RetrySchedule;
  outboundPolicy: OutboundPolicy;
  disableAfterFailingSeconds: number;
  dispatchBatchSize: number;
  dispatchPollMs: number;
}

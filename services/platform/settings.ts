import type { RetrySchedule } from '../../contracts/execute-agent';
import type { OutboundPolicy } from '../../lib/outbound/url-guard';
import type { SecretKeys } from '../../lib/secret-box';
import type { ReasoningSettings } from '../reasoning/settings';

/** What the platform routes need: defaults they put into the workflows they start. */
export interface PlatformSettings {
  approvalDefaultTtlSeconds: number;
  approvalMaxTtlSeconds: number;
  agentDefaults: { timeoutSeconds: number; maxAttempts: number };
  agentRetry: RetrySchedule;
  heartbeatTimeoutMs: number;
  callback: { maxAttempts: number; retry: RetrySchedule; timeoutMs: number };
  callbackSecretGraceSeconds: number;
  /** Seal callback signing secrets at rest, as webhook secrets are. */
  secretKeys: SecretKeys;
  /** Checks agent endpoints and callback URLs when they are given, so a refused one is a 400 then, not a failed call later. */
  outboundPolicy: OutboundPolicy;
  /** The oldest unsealed record's age beyond which the health checks call sealing stuck. */
  ledgerSealingLagAlertSeconds: number;
  /** Providers, timeouts and prompt-text policy of POST /v1/reason. */
  reasoning: ReasoningSettings;
}

import type { TokenSettings } from '../services/auth/tokens';
import type { OutboundPolicy } from '../services/outbound/url-guard';
import { secretKeysFrom, type SecretKeys } from '../services/secrets/secret-box';
import type { RetrySchedule } from '../contracts/execute-agent';
import { type Config, publicBaseUrl, tokenIssuer } from './config';

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
}

export function platformSettings(config: Config): PlatformSettings {
  return {
    approvalDefaultTtlSeconds: config.APPROVAL_DEFAULT_TTL_SECONDS,
    approvalMaxTtlSeconds: config.APPROVAL_MAX_TTL_SECONDS,
    agentDefaults: { timeoutSeconds: config.AGENT_CALL_TIMEOUT_SECONDS, maxAttempts: config.AGENT_CALL_MAX_ATTEMPTS },
    agentRetry: {
      initial_interval_ms: config.AGENT_RETRY_INITIAL_INTERVAL_MS,
      backoff_coefficient: config.AGENT_RETRY_BACKOFF_COEFFICIENT,
      maximum_interval_ms: config.AGENT_RETRY_MAX_INTERVAL_SECONDS * 1000,
    },
    heartbeatTimeoutMs: config.AGENT_HEARTBEAT_TIMEOUT_SECONDS * 1000,
    callback: {
      maxAttempts: config.CALLBACK_MAX_ATTEMPTS,
      retry: { initial_interval_ms: config.CALLBACK_RETRY_INITIAL_INTERVAL_MS, backoff_coefficient: 2, maximum_interval_ms: config.CALLBACK_RETRY_MAX_INTERVAL_SECONDS * 1000 },
      timeoutMs: config.OUTBOUND_TIMEOUT_MS,
    },
    callbackSecretGraceSeconds: config.CALLBACK_SECRET_ROTATION_GRACE_SECONDS,
    secretKeys: secretKeysFrom(config.SECRETS_ENCRYPTION_KEY, config.SECRETS_ENCRYPTION_PREVIOUS_KEYS),
    outboundPolicy: { allowlist: config.OUTBOUND_PRIVATE_ALLOWLIST },
    ledgerSealingLagAlertSeconds: config.LEDGER_SEALING_LAG_ALERT_SECONDS,
  };
}

/** What the platform's activities need: where agents report progress, and how to sign its tokens. */
export interface PlatformWorkerSettings {
  publicBaseUrl: string;
  token: TokenSettings;
  agentResultLimitBytes: number;
  /** Open the sealed callback signing secrets. */
  secretKeys: SecretKeys;
}

export function platformWorkerSettings(config: Config): PlatformWorkerSettings {
  return {
    publicBaseUrl: publicBaseUrl(config),
    token: { issuer: tokenIssuer(config), audience: config.AUTH_AUDIENCE },
    agentResultLimitBytes: config.AGENT_RESULT_LIMIT_BYTES,
    secretKeys: secretKeysFrom(config.SECRETS_ENCRYPTION_KEY, config.SECRETS_ENCRYPTION_PREVIOUS_KEYS),
  };
}

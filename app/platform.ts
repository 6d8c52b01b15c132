import type { PlatformWorkerSettings } from '../activities/settings';
import { secretKeysFrom } from '../lib/secret-box';
import type { PlatformSettings } from '../services/platform/settings';
import { type Config, publicBaseUrl, tokenIssuer } from './config';

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
      retry: {
        initial_interval_ms: config.CALLBACK_RETRY_INITIAL_INTERVAL_MS,
        backoff_coefficient: 2,
        maximum_interval_ms: config.CALLBACK_RETRY_MAX_INTERVAL_SECONDS * 1000,
      },
      timeoutMs: config.OUTBOUND_TIMEOUT_MS,
    },
    callbackSecretGraceSeconds: config.CALLBACK_SECRET_ROTATION_GRACE_SECONDS,
    secretKeys: secretKeysFrom(config.SECRETS_ENCRYPTION_KEY, config.SECRETS_ENCRYPTION_PREVIOUS_KEYS),
    outboundPolicy: { allowlist: config.OUTBOUND_PRIVATE_ALLOWLIST },
    ledgerSealingLagAlertSeconds: config.LEDGER_SEALING_LAG_ALERT_SECONDS,
    reasoning: {
      providers: Object.fromEntries(
        Object.entries(config.REASONING_PROVIDERS).map(([name, provider]) => [
          name,
          { baseUrl: provider.base_url, apiKey: provider.api_key, system: name },
        ]),
      ),
      attemptTimeoutMs: config.REASONING_ATTEMPT_TIMEOUT_MS,
      totalTimeoutMs: config.REASONING_TOTAL_TIMEOUT_MS,
      maxAttempts: config.REASONING_MAX_ATTEMPTS,
      promptTextOrganizations: config.REASONING_PROMPT_TEXT_ORGANIZATIONS,
      registryCacheMs: config.REASONING_REGISTRY_CACHE_MS,
    },
  };
}

export function platformWorkerSettings(config: Config): PlatformWorkerSettings {
  return {
    publicBaseUrl: publicBaseUrl(config),
    token: { issuer: tokenIssuer(config), audience: config.AUTH_AUDIENCE },
    agentResultLimitBytes: config.AGENT_RESULT_LIMIT_BYTES,
    secretKeys: secretKeysFrom(config.SECRETS_ENCRYPTION_KEY, config.SECRETS_ENCRYPTION_PREVIOUS_KEYS),
  };
}

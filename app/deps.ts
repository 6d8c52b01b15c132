import type { Client } from '@temporalio/client';
import type { Knex } from 'knex';
import type { Registry } from 'prom-client';
import type { AppDeps } from '../api/app';
import { createKeyRing } from '../services/identity/issuance/key-ring';
import { createRevocationRegistry } from '../services/identity/delegations/revocations';
import { CREDENTIAL_TABLES, CREDENTIALS_CHANNEL } from '../db/credentials';
import { COVERS_TABLE } from '../db/covers';
import { createNotifiedCache } from '../lib/notified-cache';
import { createDecisionWaits } from '../services/decisions/waits';
import type { WorkerSettings } from '../activities/settings';
import type { WorkerBudget } from '../workers/create-worker';
import type { LedgerSealerSettings } from '../contracts/seal-ledger';
import { secretKeysFrom } from '../lib/secret-box';
import { createMailer } from '../lib/mail/transport';
import { createSmsSender } from '../lib/sms/sender';
import type { PassportSettings } from '../services/identity/passports/settings';
import type { RecoverySettings } from '../services/recovery/settings';
import type { NotificationSettings } from '../services/notifications/settings';
import type { WebhookSettings } from '../services/webhooks/settings';
import type { WebAuthnSettings } from '../services/identity/passkeys/settings';
import type { ConnectorSettings } from '../services/connectors/settings';
import { type Config, ledgerOrigin, publicBaseUrl, tokenIssuer, webauthnRelyingParty } from './config';
import type { Logger } from '../lib/logger';
import { createHttpMetrics } from '../lib/metrics';
import type { Tracing } from '../lib/tracing';
import { registerOperationalGauges } from '../services/observability/gauges';
import { platformSettings, platformWorkerSettings } from './platform';

/** SECRETS_ENCRYPTION_KEY and the previous keys: what seals secrets and private keys at rest. */
const secretKeysOf = (config: Config) =>
  secretKeysFrom(config.SECRETS_ENCRYPTION_KEY, config.SECRETS_ENCRYPTION_PREVIOUS_KEYS);

export function escalationTimeouts(config: Config) {
  return {
    low: config.ESCALATION_TIMEOUT_LOW_SECONDS,
    medium: config.ESCALATION_TIMEOUT_MEDIUM_SECONDS,
    high: config.ESCALATION_TIMEOUT_HIGH_SECONDS,
    urgent: config.ESCALATION_TIMEOUT_URGENT_SECONDS,
  };
}

/** Installs, callbacks and provider tokens: the API and the worker read the same. */
export function connectorSettings(config: Config): ConnectorSettings {
  return {
    publicBaseUrl: publicBaseUrl(config),
    installTtlSeconds: config.CONNECTOR_INSTALL_TTL_SECONDS,
    refreshAheadSeconds: config.CONNECTOR_REFRESH_AHEAD_SECONDS,
    secretKeys: secretKeysFrom(config.SECRETS_ENCRYPTION_KEY, config.SECRETS_ENCRYPTION_PREVIOUS_KEYS),
    outbound: { policy: { allowlist: config.OUTBOUND_PRIVATE_ALLOWLIST }, timeoutMs: config.OUTBOUND_TIMEOUT_MS },
  };
}

export function appSettings(config: Config): AppDeps['settings'] {
  return {
    publicBaseUrl: publicBaseUrl(config),
    deploymentMode: config.DEPLOYMENT_MODE,
    taskQueue: config.TEMPORAL_TASK_QUEUE,
    token: { issuer: tokenIssuer(config), audience: config.AUTH_AUDIENCE },
    accessTokenTtlSeconds: config.AUTH_ACCESS_TOKEN_TTL_SECONDS,
    rateLimits: {
      windowSeconds: config.RATE_LIMIT_WINDOW_SECONDS,
      limits: {
        'routing-requests': config.RATE_LIMIT_ROUTING_REQUESTS,
        'safety-checks': config.RATE_LIMIT_SAFETY_CHECKS,
        'provenance-queries': config.RATE_LIMIT_PROVENANCE_QUERIES,
        'agent-monitoring': config.RATE_LIMIT_AGENT_MONITORING,
        'audit-logs': config.RATE_LIMIT_AUDIT_LOGS,
        default: config.RATE_LIMIT_DEFAULT,
      },
    },
    corsAllowedOrigins: config.CORS_ALLOWED_ORIGINS,
    bodyLimit: config.BODY_LIMIT,
    jsonMaxDepth: config.JSON_MAX_DEPTH,
    escalationTimeoutsSeconds: escalationTimeouts(config),
    ledgerBlockMaxAgeMs: config.LEDGER_BLOCK_MAX_AGE_MS,
    platform: platformSettings(config),
    webhooks: webhookSettings(config),
    connectors: connectorSettings(config),
    autonomousEscalationWindowSeconds: config.AUTONOMOUS_ESCALATION_WINDOW_SECONDS,
    reviewWindowSeconds: config.ROUTING_REVIEW_WINDOW_SECONDS,
    deprecations: config.API_DEPRECATIONS,
    webauthn: webauthnSettings(config),
    passports: passportSettings(config),
    recovery: recoverySettingsOf(config),
    people: { linkingCodeTtlSeconds: config.EMPLOYEE_LINKING_CODE_TTL_SECONDS },
    requestTimeoutMs: config.REQUEST_TIMEOUT_MS,
    notifications: notificationSettingsOf(config),
  };
}

export function webauthnSettings(config: Config): WebAuthnSettings {
  return {
    ...webauthnRelyingParty(config),
    rpName: config.WEBAUTHN_RP_NAME,
    publicBaseUrl: publicBaseUrl(config),
    challengeTtlSeconds: config.WEBAUTHN_CHALLENGE_TTL_SECONDS,
    sessionTtlSeconds: config.SESSION_TTL_SECONDS,
  };
}

export function workerSettings(config: Config): WorkerSettings {
  return {
    outbound: { policy: { allowlist: config.OUTBOUND_PRIVATE_ALLOWLIST }, timeoutMs: config.OUTBOUND_TIMEOUT_MS },
    ledger: { origin: ledgerOrigin(config), sealer: ledgerSealerSettings(config), secretKeys: secretKeysOf(config) },
    platform: platformWorkerSettings(config),
    connectors: connectorSettings(config),
    maxCachedWorkflows: config.TEMPORAL_WORKER_MAX_CACHED_WORKFLOWS,
    webhooks: webhookSettings(config),
    recovery: { secretKeys: secretKeysOf(config), publicBaseUrl: publicBaseUrl(config) },
    notifications: notificationSettingsOf(config),
  };
}

/**
 * The two workers' budgets: the human-facing task queue (routings, approvals, executions, the dispatcher) and the
 * deliveries' own, so that a backlog of deliveries never holds a slot a routing's workflow task needs.
 */
export function workerBudgets(config: Config): { humanFacing: WorkerBudget; deliveries: WorkerBudget } {
  return {
    humanFacing: {
      maxCachedWorkflows: config.TEMPORAL_WORKER_MAX_CACHED_WORKFLOWS,
      maxConcurrentWorkflowTaskExecutions: config.TEMPORAL_WORKER_MAX_CONCURRENT_WORKFLOW_TASKS,
      stickyQueueScheduleToStartTimeout: config.TEMPORAL_WORKER_STICKY_QUEUE_TIMEOUT_MS,
    },
    deliveries: {
      maxCachedWorkflows: Math.max(
        config.TEMPORAL_DELIVERY_WORKER_MAX_CACHED_WORKFLOWS,
        config.TEMPORAL_DELIVERY_WORKER_MAX_CONCURRENT_WORKFLOW_TASKS,
      ),
      maxConcurrentWorkflowTaskExecutions: config.TEMPORAL_DELIVERY_WORKER_MAX_CONCURRENT_WORKFLOW_TASKS,
      maxConcurrentLocalActivityExecutions: config.TEMPORAL_DELIVERY_WORKER_MAX_CONCURRENT_SENDS,
      stickyQueueScheduleToStartTimeout: config.TEMPORAL_WORKER_STICKY_QUEUE_TIMEOUT_MS,
    },
  };
}

/** The sealer polls often enough to seal a block within a quarter of its age limit of it falling due. */
export function ledgerSealerSettings(config: Config): LedgerSealerSettings {
  return {
    max_block_leaves: config.LEDGER_BLOCK_MAX_LEAVES,
    max_block_age_ms: config.LEDGER_BLOCK_MAX_AGE_MS,
    poll_interval_ms: Math.min(250, Math.max(20, Math.floor(config.LEDGER_BLOCK_MAX_AGE_MS / 4))),
    idle_return_ms: 60_000,
    close_lock_timeout_ms: 500,
    seal_timeout_ms: 30 * 60_000,
    cycles_before_continue_as_new: 500,
  };
}

export function webhookSettings(config: Config): WebhookSettings {
  return {
    secretKeys: secretKeysFrom(config.SECRETS_ENCRYPTION_KEY, config.SECRETS_ENCRYPTION_PREVIOUS_KEYS),
    retrySchedule: { delays_seconds: config.WEBHOOK_RETRY_DELAYS_SECONDS, jitter: config.WEBHOOK_RETRY_JITTER },
    outboundPolicy: { allowlist: config.OUTBOUND_PRIVATE_ALLOWLIST },
    disableAfterFailingSeconds: config.WEBHOOK_DISABLE_AFTER_FAILING_SECONDS,
    dispatchBatchSize: config.WEBHOOK_DISPATCH_BATCH_SIZE,
    dispatchPollMs: config.WEBHOOK_DISPATCH_POLL_MS,
  };
}

export function passportSettings(config: Config): PassportSettings {
  return {
    publicBaseUrl: publicBaseUrl(config),
    secretKeys: secretKeysFrom(config.SECRETS_ENCRYPTION_KEY, config.SECRETS_ENCRYPTION_PREVIOUS_KEYS),
    challengeTtlSeconds: config.PASSPORT_CHALLENGE_TTL_SECONDS,
    sessionTtlSeconds: config.SESSION_TTL_SECONDS,
    keyVerifyWindowSeconds: config.PASSPORT_KEY_VERIFY_WINDOW_SECONDS,
  };
}

export function recoverySettingsOf(config: Config): RecoverySettings {
  return {
    guardianAcceptWindowSeconds: config.RECOVERY_GUARDIAN_ACCEPT_WINDOW_SECONDS,
    guardianChangeDelaySeconds: config.RECOVERY_GUARDIAN_CHANGE_DELAY_SECONDS,
    approvalWindowSeconds: config.RECOVERY_APPROVAL_WINDOW_SECONDS,
    timeLockSeconds: config.RECOVERY_TIME_LOCK_SECONDS,
    codeTtlSeconds: config.RECOVERY_CODE_TTL_SECONDS,
    approvalMaxSkewSeconds: config.RECOVERY_APPROVAL_MAX_SKEW_SECONDS,
    secretKeys: secretKeysOf(config),
    publicBaseUrl: publicBaseUrl(config),
  };
}

export function notificationSettingsOf(config: Config): NotificationSettings {
  return {
    publicBaseUrl: publicBaseUrl(config),
    linkTtlSeconds: config.DECISION_LINK_TTL_SECONDS,
    secretKeys: secretKeysOf(config),
    outbound: { policy: { allowlist: config.OUTBOUND_PRIVATE_ALLOWLIST }, timeoutMs: config.OUTBOUND_TIMEOUT_MS },
    slackSigningSecret: config.SLACK_SIGNING_SECRET,
  };
}

/** The SMTP transport of SMTP_URL and MAIL_FROM; close it on shutdown. */
export function mailerOf(config: Config) {
  return createMailer({ smtpUrl: config.SMTP_URL, from: config.MAIL_FROM });
}

/** The SMS provider of SMS_API_URL and its account; unconfigured (it refuses to send) when any of them is unset. */
export function smsSenderOf(config: Config) {
  return createSmsSender({
    apiUrl: config.SMS_API_URL,
    accountId: config.SMS_ACCOUNT_ID,
    authToken: config.SMS_AUTH_TOKEN,
    from: config.SMS_FROM,
    timeoutMs: config.SMS_TIMEOUT_MS,
  });
}

/** Ends what createAppDeps started: the listeners, the polls and the mail transport. */
export async function closeAppDeps(deps: Pick<AppDeps, 'revocations' | 'decisions' | 'credentials' | 'mailer'>) {
  await deps.revocations.close();
  await deps.decisions.close();
  await deps.credentials.close();
  deps.mailer.close();
}

/**
 * listenUrl: where the revocation registry LISTENs (a Postgres server; DATABASE_URL unless given). Without one
 * (the embedded PGlite has no LISTEN) it polls; so do the decision waits, and the credential cache reads through.
 * End them with closeAppDeps on shutdown.
 * metrics: the process's registry (METRICS_PORT); tracing: the process's tracing (OTEL_*).
 */
export function createAppDeps(
  config: Config,
  parts: {
    db: Knex;
    temporal: Client;
    logger: Logger;
    listenUrl?: string | undefined;
    metrics?: Registry | undefined;
    tracing?: Tracing | undefined;
  },
): AppDeps {
  const { listenUrl, metrics, tracing, ...shared } = parts;
  const listenAt = 'listenUrl' in parts ? listenUrl : config.DATABASE_URL;
  const revocations = createRevocationRegistry({ db: parts.db, listenUrl: listenAt, logger: parts.logger });
  const decisions = createDecisionWaits({ listenUrl: listenAt, logger: parts.logger });
  const credentials = createNotifiedCache({
    db: parts.db,
    listenUrl: listenAt,
    channel: CREDENTIALS_CHANNEL,
    tables: [...CREDENTIAL_TABLES, COVERS_TABLE],
    logger: parts.logger,
  });
  // The API records its requests on the process's registry and reads its gauges at scrape; a tracer spans each request.
  if (metrics) registerOperationalGauges(metrics, { db: parts.db, revocations });
  const observability = {
    ...(metrics ? { httpMetrics: createHttpMetrics(metrics) } : {}),
    ...(tracing ? { tracer: tracing.tracer } : {}),
  };
  return {
    ...shared,
    keyRing: createKeyRing(parts.db, { secretKeys: secretKeysOf(config) }),
    revocations,
    decisions,
    credentials,
    mailer: mailerOf(config),
    sms: smsSenderOf(config),
    settings: appSettings(config),
    ...observability,
  };
}

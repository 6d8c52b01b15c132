import { z } from 'zod';
import { booleanFromEnv, jsonSetting } from './fields';

/** Where the API listens and how it logs. */
export const serverSettings = {
  /** HTTP port of the API. */
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  /** Address to bind the API to. */
  HOST: z.string().default('127.0.0.1'),
  /** Base URL clients use to reach the API; appears in links, the OpenAPI servers list and token issuer. */
  PUBLIC_BASE_URL: z.url().optional(),
  /**
   * cloud: a deployment run for many organizations by its operator, whose administrators (cloud:admin:global) read
   * the health of every organization (GET /v1/admin/health/organizations); self-hosted: that operation answers 404.
   */
  DEPLOYMENT_MODE: z.enum(['cloud', 'self-hosted']).default('self-hosted'),
  /** error | warn | info | http | debug */
  LOG_LEVEL: z.enum(['error', 'warn', 'info', 'http', 'debug']).default('info'),
};

/** Outgoing mail (enrollment links, codes, notifications), through one SMTP transport. */
export const mailSettings = {
  /** smtp://user:pass@host:port (smtps:// for TLS). Unset: no mail is sent, and acts that need it are refused; `npm start` catches development mail on a page of its own. */
  SMTP_URL: z
    .string()
    .regex(/^smtps?:\/\//, 'smtp:// or smtps:// URL')
    .optional(),
  /** The From of every message. */
  MAIL_FROM: z.string().default('Handoff <handoff@localhost>'),
};

/** Outgoing text messages (recovery codes), through one provider speaking Twilio's Messages API. */
export const smsSettings = {
  /** Base URL of the provider (https://api.twilio.com, or any API of the same shape). Unset: no texts are sent, and acts that need one are refused. */
  SMS_API_URL: z.url().optional(),
  /** The provider account (Twilio's Account SID), the user of its Basic authentication. */
  SMS_ACCOUNT_ID: z.string().optional(),
  /** The account's secret (Twilio's Auth Token). */
  SMS_AUTH_TOKEN: z.string().optional(),
  /** The sender of every text: an E.164 number or messaging service of the account. */
  SMS_FROM: z.string().optional(),
  /** Longest wait for the provider's answer. */
  SMS_TIMEOUT_MS: z.coerce.number().int().min(100).default(10_000),
};

/** Metrics and traces for operators (docs/operations.md). */
export const observabilitySettings = {
  /**
   * Port of the Prometheus endpoint (GET /metrics), apart from the API's. Unset: no endpoint and no metrics
   * recorded. The API and the worker each serve their own; `npm start` serves both on one.
   */
  METRICS_PORT: z.coerce.number().int().min(1).max(65535).optional(),
  /** Address the metrics endpoint binds to; 0.0.0.0 for a scraper on another host or pod. */
  METRICS_HOST: z.string().default('127.0.0.1'),
  /**
   * host:port where the Temporal SDK serves its worker metrics (poll and task latencies, slots, sticky cache),
   * in the worker process. Unset: off. Set with METRICS_PORT, they are served on /metrics as well.
   */
  TEMPORAL_METRICS_BIND_ADDRESS: z
    .string()
    .regex(/^[^:]+:\d{1,5}$/, 'host:port')
    .optional(),
  /** `otlp` turns tracing on (to http://localhost:4318 unless an endpoint is set), `none` keeps it off. */
  OTEL_TRACES_EXPORTER: z.enum(['otlp', 'none']).optional(),
  /** OTLP/HTTP collector base URL; setting it turns tracing on (traces go to <endpoint>/v1/traces). */
  OTEL_EXPORTER_OTLP_ENDPOINT: z.url().optional(),
  /** Full OTLP/HTTP traces URL, when it is not <endpoint>/v1/traces. OTEL_EXPORTER_OTLP_HEADERS is read by the exporter itself. */
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: z.url().optional(),
  /** service.name of this process's spans; default handoff-api, handoff-worker, or handoff under `npm start`. */
  OTEL_SERVICE_NAME: z.string().optional(),
};

/** The database, its pool and timeouts, and where the dev supervisor keeps its data. */
export const databaseSettings = {
  /** PostgreSQL connection string. Unset: `npm start` runs an embedded PGlite under DATA_DIR. */
  DATABASE_URL: z.string().optional(),
  /** Connections per process in the knex pool. */
  DATABASE_POOL_MAX: z.coerce.number().int().positive().default(10),
  /** Longest wait for a pool connection (a new one included) before the request answers 503. */
  DATABASE_ACQUIRE_TIMEOUT_MS: z.coerce.number().int().min(100).default(3000),
  /** Longest one statement may run (server-side statement_timeout; the client gives up a second later if the server is gone). */
  DATABASE_STATEMENT_TIMEOUT_MS: z.coerce.number().int().min(100).default(5000),
  /** A session idle inside a transaction this long is ended by the server, so a stuck client never holds locks for ever. */
  DATABASE_IDLE_IN_TRANSACTION_TIMEOUT_MS: z.coerce.number().int().min(100).default(30_000),
  /**
   * Longest an API request may take: past it, it answers 503 service_unavailable with Retry-After and its
   * Temporal calls are cancelled. An Idempotency-Key in flight is locked this long plus that Retry-After.
   */
  REQUEST_TIMEOUT_MS: z.coerce.number().int().min(1000).default(15_000),
  /** Where the dev supervisor keeps the embedded Postgres and Temporal's SQLite file. */
  DATA_DIR: z.string().default('.data'),
  /** Port the embedded Postgres listens on, so `npm run token` and psql reach it while `npm start` runs. */
  EMBEDDED_POSTGRES_PORT: z.coerce.number().int().min(1).max(65535).default(54329),
};

/** The Temporal connection. */
export const temporalSettings = {
  /** host:port of the Temporal frontend. */
  TEMPORAL_ADDRESS: z.string().default('127.0.0.1:7233'),
  TEMPORAL_NAMESPACE: z.string().default('default'),
  TEMPORAL_TASK_QUEUE: z.string().default('handoff'),
  /** Temporal Cloud API key; implies TLS. */
  TEMPORAL_API_KEY: z.string().optional(),
  /** Use TLS to reach Temporal (mTLS when the client cert and key are set). */
  TEMPORAL_TLS: booleanFromEnv.default(false),
  /** PEM paths for mTLS to Temporal. */
  TEMPORAL_TLS_CERT_PATH: z.string().optional(),
  TEMPORAL_TLS_KEY_PATH: z.string().optional(),
  TEMPORAL_TLS_CA_PATH: z.string().optional(),
  TEMPORAL_TLS_SERVER_NAME: z.string().optional(),
};

/** Versions of the API on their way out. */
export const apiVersionSettings = {
  /**
   * Deprecated API versions, as a JSON array of {"prefix":"/v1","sunset":"<ISO 8601>","deprecated_at":"<ISO 8601>",
   * "link":"<migration guide URL>"}: responses under a prefix carry Deprecation (RFC 9745), Sunset (RFC 8594) and
   * Link headers. Empty: no version is deprecated.
   */
  API_DEPRECATIONS: jsonSetting(
    '[]',
    'a JSON array',
    z.array(
      z
        .object({
          prefix: z.string().regex(/^\/[^?#]*$/, 'must be a path prefix such as /v1'),
          sunset: z.iso.datetime({ offset: true }),
          deprecated_at: z.iso.datetime({ offset: true }).optional(),
          link: z.url().optional(),
        })
        .strict(),
    ),
  ),
};

import { z } from 'zod';
import { DEFAULT_RETRY_SCHEDULE } from '../domain/webhooks/rules';

const booleanFromEnv = z
  .enum(['true', 'false', '1', '0', 'yes', 'no'])
  .transform((value) => value === 'true' || value === '1' || value === 'yes');

const commaList = z.string().transform((value) =>
  value
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item.length > 0),
);

/** 32 bytes, base64 or base64url. */
const isSecretKey = (value: string) => Buffer.from(value.trim(), 'base64').length === 32;
const secretKey = z.string().refine(isSecretKey, 'must be 32 bytes, base64-encoded (e.g. `openssl rand -base64 32`)');

/** Seconds, e.g. "900"; every escalation-level timeout is configurable. */
const seconds = z.coerce.number().int().positive();

/**
 * Every setting the service reads, with its default. Parsed once at boot by an entry point and passed
 * down; nothing below the entry points reads process.env.
 */
export const configSchema = z.object({
  /** HTTP port of the API. */
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  /** Address to bind the API to. */
  HOST: z.string().default('127.0.0.1'),
  /** Base URL clients use to reach the API; appears in links, the OpenAPI servers list and token issuer. */
  PUBLIC_BASE_URL: z.url().optional(),
  /** error | warn | info | http | debug */
  LOG_LEVEL: z.enum(['error', 'warn', 'info', 'http', 'debug']).default('info'),

  // Metrics and traces for operators (docs/operations.md).
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

  /** Issuer (`iss`) of the tokens this deployment signs; defaults to PUBLIC_BASE_URL. */
  AUTH_ISSUER: z.string().optional(),
  /** Audience (`aud`) of the tokens this deployment signs and accepts. */
  AUTH_AUDIENCE: z.string().default('handoff-api'),
  /** Lifetime of access tokens from the token endpoint. */
  AUTH_ACCESS_TOKEN_TTL_SECONDS: seconds.default(3600),

  /** Origins allowed by CORS, comma-separated; empty allows none. */
  CORS_ALLOWED_ORIGINS: commaList.default([]),
  /** Largest JSON body accepted. */
  BODY_LIMIT: z.string().default('256kb'),
  /** Deepest nesting of objects and arrays in a JSON body (the body itself is level 1); deeper bodies are refused with 400. */
  JSON_MAX_DEPTH: z.coerce.number().int().min(2).max(1000).default(32),

  /** Requests per window and the window, per category (spec: Limits). */
  RATE_LIMIT_WINDOW_SECONDS: seconds.default(3600),
  RATE_LIMIT_ROUTING_REQUESTS: z.coerce.number().int().positive().default(5000),
  RATE_LIMIT_SAFETY_CHECKS: z.coerce.number().int().positive().default(10000),
  RATE_LIMIT_PROVENANCE_QUERIES: z.coerce.number().int().positive().default(2000),
  RATE_LIMIT_AGENT_MONITORING: z.coerce.number().int().positive().default(1000),
  RATE_LIMIT_AUDIT_LOGS: z.coerce.number().int().positive().default(500),
  /** Everything else under /v1 and the token endpoint. */
  RATE_LIMIT_DEFAULT: z.coerce.number().int().positive().default(5000),

  /**
   * Private or loopback destinations that outbound calls (webhooks, callbacks, agent endpoints) may reach,
   * comma-separated host names, IP addresses or CIDR ranges. Empty: only public addresses.
   */
  OUTBOUND_PRIVATE_ALLOWLIST: commaList.default([]),
  /** How long one outbound HTTP call may take before it counts as failed. */
  OUTBOUND_TIMEOUT_MS: z.coerce.number().int().positive().default(10_000),

  /**
   * 32 random bytes, base64 (`openssl rand -base64 32`): seals webhook signing secrets (AES-256-GCM).
   * Unset: creating webhook subscriptions answers 503 and deliveries wait for it; `npm start` keeps a
   * generated key under DATA_DIR instead. Never commit one.
   */
  SECRETS_ENCRYPTION_KEY: secretKey.optional(),
  /** Keys that sealed secrets before the current one, comma-separated; they only open, until every secret is rotated. */
  SECRETS_ENCRYPTION_PREVIOUS_KEYS: commaList.pipe(z.array(secretKey)).default([]),

  /** How long a Passport device ceremony challenge (registration or sign-in) may be answered. */
  PASSPORT_CHALLENGE_TTL_SECONDS: seconds.max(3600).default(300),
  /** Lifetime of the session token a device sign-in issues. */
  /**
   * How long a rotated-out agent or organization key still verifies, and so the longest a signature by a
   * Passport key may live (default 30 days, the longest delegation token).
   */
  PASSPORT_KEY_VERIFY_WINDOW_SECONDS: seconds.default(2_592_000),
  /** Waits between webhook delivery attempts in seconds, comma-separated; about a day in all by default. */
  WEBHOOK_RETRY_DELAYS_SECONDS: z
    .string()
    .transform((value, ctx) => {
      const delays = value.split(',').map((item) => Number(item.trim()));
      if (delays.length === 0 || delays.some((delay) => !Number.isInteger(delay) || delay < 1))
        ctx.addIssue({ code: 'custom', message: 'a comma-separated list of whole seconds, each at least 1' });
      return delays;
    })
    .default(DEFAULT_RETRY_SCHEDULE.delays_seconds),
  /** Each retry wait is spread by ± this share of it. */
  WEBHOOK_RETRY_JITTER: z.coerce.number().min(0).max(1).default(DEFAULT_RETRY_SCHEDULE.jitter),
  /** An endpoint whose every attempt failed for this long is disabled (a 410 disables it at once). */
  WEBHOOK_DISABLE_AFTER_FAILING_SECONDS: seconds.default(3 * 24 * 60 * 60),
  /** Outbox events the dispatcher claims per batch. */
  WEBHOOK_DISPATCH_BATCH_SIZE: z.coerce.number().int().positive().max(1000).default(100),
  /** The dispatcher looks for undispatched events at least this often; on a Postgres server commits also wake it. */
  WEBHOOK_DISPATCH_POLL_MS: z.coerce.number().int().min(100).default(5000),
  /**
   * Wake-ups of the dispatcher are at least this far apart: under load one pass takes the events of many
   * commits, instead of a pass (workflow task and activity) per commit; events wait at most this long more.
   */
  WEBHOOK_DISPATCH_WAKE_INTERVAL_MS: z.coerce.number().int().min(0).max(10_000).default(200),

  /** Seconds a reviewer at each escalation level has before the routing moves up the chain. */
  ESCALATION_TIMEOUT_LOW_SECONDS: seconds.default(15 * 60),
  ESCALATION_TIMEOUT_MEDIUM_SECONDS: seconds.default(15 * 60),
  ESCALATION_TIMEOUT_HIGH_SECONDS: seconds.default(30 * 60),
  ESCALATION_TIMEOUT_URGENT_SECONDS: seconds.default(60 * 60),

  /**
   * The provenance ledger's origin: the first line of every checkpoint and the name of the log's key.
   * Fixed when the key is first created (checkpoints must stay verifiable); default: the host of
   * PUBLIC_BASE_URL (else HOST:PORT) followed by /ledger.
   */
  LEDGER_ORIGIN: z.string().optional(),
  /** A block is sealed into a signed checkpoint once it holds this many records… */
  LEDGER_BLOCK_MAX_LEAVES: z.coerce.number().int().positive().default(1000),
  /** …or once its oldest record has waited this long, whichever comes first. */
  LEDGER_BLOCK_MAX_AGE_MS: z.coerce.number().int().positive().default(5000),
  /** Health turns degraded once a record has waited this long for its checkpoint (the sealer is stuck or gone). */
  LEDGER_SEALING_LAG_ALERT_SECONDS: seconds.default(60),
  // Passkeys (WebAuthn) and sessions.
  /** The relying party id passkeys are bound to: a domain (an IP address is not one). Default: PUBLIC_BASE_URL's host name. */
  WEBAUTHN_RP_ID: z.string().optional(),
  /** The name an authenticator shows for this service. */
  WEBAUTHN_RP_NAME: z.string().default('Handoff'),
  /** Origins (scheme://host[:port]) a passkey ceremony may run on, comma-separated. Default: PUBLIC_BASE_URL's origin. */
  WEBAUTHN_ORIGINS: commaList.pipe(z.array(z.url())).optional(),
  /** How long a registration or sign-in challenge can be answered; each answers once. */
  WEBAUTHN_CHALLENGE_TTL_SECONDS: z.coerce.number().int().min(30).max(3600).default(300),
  /** Lifetime of a session token from a passkey sign-in (exchanged for delegation tokens, used to manage passkeys). */
  SESSION_TTL_SECONDS: z.coerce
    .number()
    .int()
    .min(60)
    .max(24 * 60 * 60)
    .default(15 * 60),
  // Platform: approvals, agent executions and their callbacks.
  /** Seconds an approval request stays pending when the caller gives no expires_at, and the most it may ask for. */
  APPROVAL_DEFAULT_TTL_SECONDS: seconds.default(24 * 60 * 60),
  APPROVAL_MAX_TTL_SECONDS: seconds.default(30 * 24 * 60 * 60),
  /** Defaults of a registered agent: how long one call may take and how many attempts an execution makes. */
  AGENT_CALL_TIMEOUT_SECONDS: seconds.default(300),
  AGENT_CALL_MAX_ATTEMPTS: z.coerce.number().int().min(1).max(20).default(3),
  /** Backoff between attempts of an agent call: first wait, growth factor, longest wait. */
  AGENT_RETRY_INITIAL_INTERVAL_MS: z.coerce.number().int().positive().default(1000),
  AGENT_RETRY_BACKOFF_COEFFICIENT: z.coerce.number().min(1).max(10).default(2),
  AGENT_RETRY_MAX_INTERVAL_SECONDS: seconds.default(300),
  /** An agent call whose worker has not heartbeated for this long is taken as lost and retried elsewhere. */
  AGENT_HEARTBEAT_TIMEOUT_SECONDS: seconds.default(30),
  /** Largest agent answer kept as an execution's result_json. */
  AGENT_RESULT_LIMIT_BYTES: z.coerce.number().int().positive().max(1_048_576).default(262_144),
  /** Attempts and backoff of an execution's callback to its callback_url. */
  CALLBACK_MAX_ATTEMPTS: z.coerce.number().int().min(1).max(50).default(10),
  CALLBACK_RETRY_INITIAL_INTERVAL_MS: z.coerce.number().int().positive().default(1000),
  CALLBACK_RETRY_MAX_INTERVAL_SECONDS: seconds.default(60 * 60),
  /** How long a rotated callback signing secret keeps signing beside the new one. */
  CALLBACK_SECRET_ROTATION_GRACE_SECONDS: seconds.default(24 * 60 * 60),
  /**
   * Workflows a worker keeps in its cache. Small, so that thousands of waiting approvals and routings cost no
   * worker memory: an idle wait is evicted, and the signal that ends it replays a history of a few events.
   */
  TEMPORAL_WORKER_MAX_CACHED_WORKFLOWS: z.coerce.number().int().min(0).default(250),
  // Orchestration layer (issue 3).
  /** How long an autonomous routing in escalation mode (the agent operations' default) stays open to an escalation. */
  AUTONOMOUS_ESCALATION_WINDOW_SECONDS: seconds.default(24 * 60 * 60),
  /**
   * How long after its decision an autonomous routing (any mode) can still be escalated by hand
   * (POST /v1/orch/escalation/manual): a supervisor who reviews what an agent did alone reopens it for a human.
   * 0: never.
   */
  ROUTING_REVIEW_WINDOW_SECONDS: z.coerce
    .number()
    .int()
    .min(0)
    .default(7 * 24 * 60 * 60),
  // Reasoning and the model registry.
  /**
   * The OpenAI-compatible providers models are routed to, as a JSON object from provider name (a model's
   * provider) to {"base_url": "…/v1", "api_key": "…"} (api_key optional, e.g. for Ollama or vLLM). Empty: POST
   * /v1/reason answers 503 reasoning_not_configured. Holds secrets: set it from a secret store, never commit it.
   */
  REASONING_PROVIDERS: z
    .string()
    .default('{}')
    .transform((text, ctx) => {
      try {
        return JSON.parse(text) as unknown;
      } catch {
        ctx.addIssue({ code: 'custom', message: 'must be a JSON object' });
        return z.NEVER;
      }
    })
    .pipe(
      z.record(
        z.string().regex(/^[A-Za-z0-9._-]{1,64}$/),
        z.object({ base_url: z.url({ protocol: /^https?$/ }), api_key: z.string().min(1).optional() }).strict(),
      ),
    ),
  /** One provider call may take this long before the next alternative model is tried. */
  REASONING_ATTEMPT_TIMEOUT_MS: z.coerce.number().int().positive().default(30_000),
  /** No further alternative is tried once a reasoning request has taken this long. */
  REASONING_TOTAL_TIMEOUT_MS: z.coerce.number().int().positive().default(90_000),
  /** Providers tried per reasoning request, the selected model included. */
  REASONING_MAX_ATTEMPTS: z.coerce.number().int().min(1).max(10).default(3),
  /** Organizations (ids, comma-separated) whose policy allows keeping prompt text with each call record; others keep only its SHA-256. */
  REASONING_PROMPT_TEXT_ORGANIZATIONS: commaList.default([]),
  /** How long an API instance reuses the model registry it read; its own changes apply at once. */
  REASONING_REGISTRY_CACHE_MS: z.coerce.number().int().min(0).default(5000),
  /**
   * Deprecated API versions, as a JSON array of {"prefix":"/v1","sunset":"<ISO 8601>","deprecated_at":"<ISO 8601>",
   * "link":"<migration guide URL>"}: responses under a prefix carry Deprecation (RFC 9745), Sunset (RFC 8594) and
   * Link headers. Empty: no version is deprecated.
   */
  API_DEPRECATIONS: z
    .string()
    .default('[]')
    .transform((text, ctx) => {
      try {
        return JSON.parse(text) as unknown;
      } catch {
        ctx.addIssue({ code: 'custom', message: 'must be a JSON array' });
        return z.NEVER;
      }
    })
    .pipe(
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
});

export type Config = z.infer<typeof configSchema>;

export class ConfigError extends Error {
  override name = 'ConfigError';
}

export function loadConfig(env: Record<string, string | undefined>): Config {
  const present = Object.fromEntries(Object.entries(env).filter(([, value]) => value !== undefined && value !== ''));
  const parsed = configSchema.safeParse(present);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((issue) => `  ${issue.path.join('.')}: ${issue.message}`);
    throw new ConfigError(`Invalid configuration:\n${lines.join('\n')}`);
  }
  return parsed.data;
}

export function publicBaseUrl(config: Config): string {
  return config.PUBLIC_BASE_URL ?? `http://${config.HOST}:${config.PORT}`;
}

export function ledgerOrigin(config: Config): string {
  return config.LEDGER_ORIGIN ?? `${new URL(publicBaseUrl(config)).host}/ledger`;
}

export function tokenIssuer(config: Config): string {
  return config.AUTH_ISSUER ?? publicBaseUrl(config);
}

/** WebAuthn's relying party: the RP id and the origins ceremonies may run on, from PUBLIC_BASE_URL unless set. */
export function webauthnRelyingParty(config: Config): { rpId: string; origins: string[] } {
  const base = new URL(publicBaseUrl(config));
  return { rpId: config.WEBAUTHN_RP_ID ?? base.hostname, origins: config.WEBAUTHN_ORIGINS ?? [base.origin] };
}

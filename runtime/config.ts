import { z } from 'zod';

const booleanFromEnv = z
  .enum(['true', 'false', '1', '0', 'yes', 'no'])
  .transform((value) => value === 'true' || value === '1' || value === 'yes');

const commaList = z
  .string()
  .transform((value) =>
    value
      .split(',')
      .map((item) => item.trim())
      .filter((item) => item.length > 0),
  );

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

  /** PostgreSQL connection string. Unset: `npm start` runs an embedded PGlite under DATA_DIR. */
  DATABASE_URL: z.string().optional(),
  /** Connections per process in the knex pool. */
  DATABASE_POOL_MAX: z.coerce.number().int().positive().default(10),
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

  /** Seconds a reviewer at each escalation level has before the routing moves up the chain. */
  ESCALATION_TIMEOUT_LOW_SECONDS: seconds.default(15 * 60),
  ESCALATION_TIMEOUT_MEDIUM_SECONDS: seconds.default(15 * 60),
  ESCALATION_TIMEOUT_HIGH_SECONDS: seconds.default(30 * 60),
  ESCALATION_TIMEOUT_URGENT_SECONDS: seconds.default(60 * 60),

  // Orchestration layer (issue 3).
  /** How long an autonomous routing in escalation mode (the agent operations' default) stays open to an escalation. */
  AUTONOMOUS_ESCALATION_WINDOW_SECONDS: seconds.default(24 * 60 * 60),
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

export function tokenIssuer(config: Config): string {
  return config.AUTH_ISSUER ?? publicBaseUrl(config);
}

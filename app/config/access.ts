import { z } from 'zod';
import { commaList, secretKey, seconds } from './fields';

/** The tokens this deployment signs. */
export const authSettings = {
  /** Issuer (`iss`) of the tokens this deployment signs; defaults to PUBLIC_BASE_URL. */
  AUTH_ISSUER: z.string().optional(),
  /** Audience (`aud`) of the tokens this deployment signs and accepts. */
  AUTH_AUDIENCE: z.string().default('handoff-api'),
  /** Lifetime of access tokens from the token endpoint. */
  AUTH_ACCESS_TOKEN_TTL_SECONDS: seconds.default(3600),
};

/** What a request may be, and how many a client may make. */
export const requestLimitSettings = {
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
};

/** Outbound calls: webhooks, callbacks, agent endpoints. */
export const outboundSettings = {
  /**
   * Private or loopback destinations that outbound calls (webhooks, callbacks, agent endpoints) may reach,
   * comma-separated host names, IP addresses or CIDR ranges. Empty: only public addresses.
   */
  OUTBOUND_PRIVATE_ALLOWLIST: commaList.default([]),
  /** How long one outbound HTTP call may take before it counts as failed. */
  OUTBOUND_TIMEOUT_MS: z.coerce.number().int().positive().default(10_000),
};

/** The keys that seal stored secrets. */
export const secretSettings = {
  /**
   * 32 random bytes, base64 (`openssl rand -base64 32`): seals webhook signing secrets (AES-256-GCM).
   * Unset: creating webhook subscriptions answers 503 and deliveries wait for it; `npm start` keeps a
   * generated key under DATA_DIR instead. Never commit one.
   */
  SECRETS_ENCRYPTION_KEY: secretKey.optional(),
  /** Keys that sealed secrets before the current one, comma-separated; they only open, until every secret is rotated. */
  SECRETS_ENCRYPTION_PREVIOUS_KEYS: commaList.pipe(z.array(secretKey)).default([]),
};

/** Passport device ceremonies and keys. */
export const passportSettings = {
  /** How long a Passport device ceremony challenge (registration or sign-in) may be answered. */
  PASSPORT_CHALLENGE_TTL_SECONDS: seconds.max(3600).default(300),
  /**
   * How long a rotated-out agent or organization key still verifies, and so the longest a signature by a
   * Passport key may live (default 30 days, the longest delegation token).
   */
  PASSPORT_KEY_VERIFY_WINDOW_SECONDS: seconds.default(2_592_000),
  /** How long an employee's linking code, and the enrollment link of their onboarding e-mail, may be used (default 7 days). */
  EMPLOYEE_LINKING_CODE_TTL_SECONDS: seconds.min(300).default(604_800),
};

/** Passkeys (WebAuthn) and sessions. */
export const passkeySettings = {
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
};

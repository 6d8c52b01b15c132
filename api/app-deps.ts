import type { Tracer } from '@opentelemetry/api';
import type { Client } from '@temporalio/client';
import type { Knex } from 'knex';
import type { Logger } from '../lib/logger';
import type { Mailer } from '../lib/mail/transport';
import type { SmsSender } from '../lib/sms/sender';
import type { HttpMetrics } from '../lib/metrics';
import type { PlatformSettings } from '../services/platform/settings';
import type { WebhookSettings } from '../services/webhooks/settings';
import type { ConnectorSettings } from '../services/connectors/settings';
import type { WebAuthnSettings } from '../services/identity/passkeys/settings';
import type { PassportSettings } from '../services/identity/passports/settings';
import type { RecoverySettings } from '../services/recovery/settings';
import type { NotificationSettings } from '../services/notifications/settings';
import type { PeopleSettings } from '../services/people/settings';
import type { KeyRing } from '../services/identity/issuance/key-ring';
import type { TokenSettings } from '../services/identity/authentication/actor';
import type { RevocationRegistry } from '../services/identity/delegations/revocations';
import type { NotifiedCache } from '../lib/notified-cache';
import type { DecisionWaits } from '../services/decisions/waits';
import type { HumanEscalationLevel } from '../contracts/route-task';
import type { RateLimitSettings } from './middleware/rate-limit';
import type { Deprecation } from './middleware/deprecation';

/** What the app is built from: the composition root (app/deps.ts) gives it. */
export interface AppDeps {
  db: Knex;
  temporal: Client;
  keyRing: KeyRing;
  logger: Logger;
  /** Every unexpired delegation-token revocation, kept current on this instance (services/identity/delegations/revocations.ts). */
  revocations: RevocationRegistry;
  /**
   * The credential rows authentication reads on every request, and the covers an approval's opening reads, held
   * while every change to them is heard of (lib/notified-cache.ts).
   */
  credentials: NotifiedCache;
  /** The waits of GET …?wait= for a routing's or an approval's decision, woken by NOTIFY (services/decisions/waits.ts). */
  decisions: DecisionWaits;
  /** Outgoing mail over SMTP_URL; `configured` is false when this deployment sends none. */
  mailer: Mailer;
  /** Outgoing texts through SMS_API_URL's provider; `configured` is false when this deployment sends none. */
  sms: SmsSender;
  settings: {
    publicBaseUrl: string;
    /** cloud: the operator's cross-organization operations are offered (DEPLOYMENT_MODE). */
    deploymentMode: 'cloud' | 'self-hosted';
    taskQueue: string;
    token: TokenSettings;
    accessTokenTtlSeconds: number;
    rateLimits: RateLimitSettings;
    corsAllowedOrigins: string[];
    bodyLimit: string;
    /** Deepest nesting of objects and arrays a JSON body may have. */
    jsonMaxDepth: number;
    escalationTimeoutsSeconds: Record<HumanEscalationLevel, number>;
    /** A block's age limit: how long a client should wait for a record's proof. */
    ledgerBlockMaxAgeMs: number;
    platform: PlatformSettings;
    webhooks: WebhookSettings;
    connectors: ConnectorSettings;
    // Orchestration layer.
    autonomousEscalationWindowSeconds: number;
    reviewWindowSeconds: number;
    deprecations: Deprecation[];
    webauthn: WebAuthnSettings;
    passports: PassportSettings;
    recovery: RecoverySettings;
    people: PeopleSettings;
    /** Longest a request may take before it answers 503; the idempotency lock lasts about as long. */
    requestTimeoutMs: number;
    /** Decision links and the Slack callback's signing secret. */
    notifications: NotificationSettings;
  };
  /** Given (METRICS_PORT), every request's duration is recorded by route template. */
  httpMetrics?: HttpMetrics;
  /** Given (OTEL_*), every request gets a server span, and its Temporal calls and log lines join the trace. */
  tracer?: Tracer;
}

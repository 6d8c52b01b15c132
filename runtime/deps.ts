import type { Client } from '@temporalio/client';
import type { Knex } from 'knex';
import type { AppDeps } from '../api/app';
import { createKeyRing } from '../services/auth/key-ring';
import type { OutboundPolicy } from '../services/outbound/url-guard';
import { type Config, publicBaseUrl, tokenIssuer } from './config';
import type { Logger } from './logger';

export function escalationTimeouts(config: Config) {
  return {
    low: config.ESCALATION_TIMEOUT_LOW_SECONDS,
    medium: config.ESCALATION_TIMEOUT_MEDIUM_SECONDS,
    high: config.ESCALATION_TIMEOUT_HIGH_SECONDS,
    urgent: config.ESCALATION_TIMEOUT_URGENT_SECONDS,
  };
}

export function appSettings(config: Config): AppDeps['settings'] {
  return {
    publicBaseUrl: publicBaseUrl(config),
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
    escalationTimeoutsSeconds: escalationTimeouts(config),
    autonomousEscalationWindowSeconds: config.AUTONOMOUS_ESCALATION_WINDOW_SECONDS,
    deprecations: config.API_DEPRECATIONS,
  };
}

/** What activities need beyond their connections; the worker builds them once from the config. */
export interface WorkerSettings {
  outbound: { policy: OutboundPolicy; timeoutMs: number };
}

export function workerSettings(config: Config): WorkerSettings {
  return {
    outbound: { policy: { allowlist: config.OUTBOUND_PRIVATE_ALLOWLIST }, timeoutMs: config.OUTBOUND_TIMEOUT_MS },
  };
}

export function createAppDeps(config: Config, parts: { db: Knex; temporal: Client; logger: Logger }): AppDeps {
  return { ...parts, keyRing: createKeyRing(parts.db), settings: appSettings(config) };
}

import type { Request, RequestHandler } from 'express';
import type { Knex } from 'knex';
import { countRequest, deleteRateLimitWindowsBefore } from '../../db/rate-limits';
import type { Logger } from '../../lib/logger';
import { Problem } from '../problem';
import { principalOf } from './auth';

export const RATE_LIMIT_CATEGORIES = [
  'routing-requests',
  'safety-checks',
  'provenance-queries',
  'agent-monitoring',
  'audit-logs',
  'default',
] as const;
export type RateLimitCategory = (typeof RATE_LIMIT_CATEGORIES)[number];

export interface RateLimitSettings {
  windowSeconds: number;
  limits: Record<RateLimitCategory, number>;
}

function callerKey(req: Request, principalId: string | undefined): string {
  return principalId ?? `ip:${req.ip ?? 'unknown'}`;
}

/**
 * Fixed-window limits per principal and category, counted in Postgres so that every API instance sees
 * the same count. Anonymous calls are counted per client address.
 */
export function rateLimit(
  deps: { db: Knex; settings: RateLimitSettings; logger: Logger },
  category: RateLimitCategory,
): RequestHandler {
  const { windowSeconds, limits } = deps.settings;
  let lastSweep = 0;
  return async (req, res, next) => {
    const now = Date.now();
    const windowStartMs = Math.floor(now / (windowSeconds * 1000)) * windowSeconds * 1000;
    const resetSeconds = (windowStartMs + windowSeconds * 1000) / 1000;
    const limit = limits[category];
    const count = await countRequest(deps.db, {
      principal: callerKey(req, principalOf(res)?.id),
      category,
      windowStart: new Date(windowStartMs),
    });
    res.set({
      'X-RateLimit-Limit': String(limit),
      'X-RateLimit-Remaining': String(Math.max(0, limit - count)),
      'X-RateLimit-Reset': String(resetSeconds),
      'X-RateLimit-Resource': category,
    });
    if (now - lastSweep > windowSeconds * 1000) {
      lastSweep = now;
      deleteRateLimitWindowsBefore(deps.db, new Date(windowStartMs - windowSeconds * 1000)).catch((error: unknown) =>
        deps.logger.warn('rate-limit sweep failed', { error }),
      );
    }
    if (count > limit) {
      const retryAfter = Math.max(1, Math.ceil(resetSeconds - now / 1000));
      throw new Problem(
        'rate_limit_exceeded',
        `The ${category} limit of ${limit} requests per ${windowSeconds} s is used up`,
        {
          headers: { 'Retry-After': String(retryAfter) },
          extensions: { retry_after_seconds: retryAfter },
        },
      );
    }
    next();
  };
}

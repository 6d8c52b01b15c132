import { createHash } from 'node:crypto';
import type { RequestHandler } from 'express';
import type { Knex } from 'knex';
import { claimIdempotencyKey, completeIdempotencyKey, releaseIdempotencyKey } from '../../db/idempotency';
import { canonicalJson } from '../../domain/canonical-json';
import type { Logger } from '../../lib/logger';
import { Problem } from '../problem';
import { IdempotencyKeySchema } from '../schemas/common';
import { principalOf } from './auth';
import { UNAVAILABLE_RETRY_AFTER_SECONDS } from './problem';
import { answeredByDeadline } from './request-deadline';
import { requestIdOf } from './request-id';

const TTL_SECONDS = 24 * 60 * 60;
const REPLAYED_HEADERS = ['content-type', 'location'];

/**
 * Answers given before the operation began (the request was refused as it stood) or that say nothing about
 * its outcome (a server error): the key is released so that a corrected or later retry runs, as Stripe does.
 */
function releasesKey(status: number): boolean {
  return status >= 500 || status === 400 || status === 401 || status === 403 || status === 413 || status === 415 || status === 429;
}

/**
 * How long a claim holds before a duplicate may take over: the request's own deadline (it has answered by then)
 * and the wait a 503 asks for, so that a retry after a crash gets through in seconds and never overlaps the first.
 */
export function idempotencyLockSeconds(requestTimeoutMs: number): number {
  return Math.ceil(requestTimeoutMs / 1000) + UNAVAILABLE_RETRY_AFTER_SECONDS;
}

/**
 * Idempotency-Key on POST/PUT/PATCH/DELETE: 24 h, per principal; the fingerprint is method + path + the
 * canonical JSON body. The response is stored before it is sent, so a client that saw it can always
 * replay it. Refusals before the operation began and server errors release the key so that a retry runs again.
 */
export function idempotency(deps: { db: Knex; logger: Logger; requestTimeoutMs: number }): RequestHandler {
  const lockSeconds = idempotencyLockSeconds(deps.requestTimeoutMs);
  return async (req, res, next) => {
    const key = req.get('idempotency-key');
    if (key === undefined) {
      next();
      return;
    }
    if (!IdempotencyKeySchema.safeParse(key).success) {
      throw new Problem('validation_failed', 'Idempotency-Key must be 1 to 255 visible ASCII characters', {
        errors: [{ field: 'Idempotency-Key', code: 'invalid_format', message: 'must be 1 to 255 visible ASCII characters' }],
      });
    }
    const principal = principalOf(res)?.id ?? `ip:${req.ip ?? 'unknown'}`;
    const fingerprint = createHash('sha256')
      .update(`${req.method} ${req.baseUrl}${req.path}\n${canonicalJson(req.body ?? null)}`)
      .digest('hex');
    const scope = { principal, key };
    const claim = await claimIdempotencyKey(deps.db, { ...scope, fingerprint, lockSeconds, ttlSeconds: TTL_SECONDS });

    switch (claim.state) {
      case 'mismatch':
        throw new Problem('idempotency_key_reused', 'This Idempotency-Key was first used with a different request; use a new key for a new request');
      case 'in_flight':
        throw new Problem('idempotency_request_in_flight', 'The first request with this Idempotency-Key has not finished; retry after a moment', {
          headers: { 'Retry-After': String(claim.retryAfterSeconds) },
        });
      case 'completed':
        res.set(claim.response.headers).set('Idempotent-Replayed', 'true').status(claim.response.status).send(claim.response.body);
        return;
      case 'claimed':
        break;
    }

    const send = res.send.bind(res);
    res.send = (body?: unknown) => {
      // The deadline's 503 leaves the key claimed until its lock lapses: the handler may still be finishing.
      if (answeredByDeadline(res)) return res.headersSent ? res : send(body);
      const text = typeof body === 'string' ? body : Buffer.isBuffer(body) ? body.toString('utf8') : body === undefined ? '' : JSON.stringify(body);
      const finish =
        releasesKey(res.statusCode)
          ? releaseIdempotencyKey(deps.db, scope)
          : completeIdempotencyKey(deps.db, scope, {
              status: res.statusCode,
              headers: Object.fromEntries(REPLAYED_HEADERS.flatMap((name) => (res.get(name) ? [[name, res.get(name) as string]] : []))),
              body: text,
            });
      const recorded = finish.catch((error: unknown) => deps.logger.error('idempotency record failed', { request_id: requestIdOf(res), error }));
      // A server error is sent at once: its release may wait on the very dependency that failed (the lock lapses anyway).
      if (res.statusCode >= 500) send(text);
      else void recorded.finally(() => send(text));
      return res;
    };
    // A client that hangs up before the answer leaves the key claimed until its lock lapses.
    next();
  };
}

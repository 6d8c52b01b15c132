import { createHash } from 'node:crypto';
import type { RequestHandler, Response } from 'express';
import type { Knex } from 'knex';
import { claimIdempotencyKey, completeIdempotencyKey, releaseIdempotencyKey } from '../../db/idempotency';
import { canonicalJson } from '../../domain/common/canonical-json';
import type { Logger } from '../../lib/logger';
import { createSecretBox, type SecretBox, type SecretKeys } from '../../lib/secret-box';
import { Problem } from '../problem';
import { IdempotencyKeySchema } from '../schemas/common';
import { principalOf } from './auth';
import { UNAVAILABLE_RETRY_AFTER_SECONDS } from './problem';
import { answeredByDeadline } from './request-deadline';
import { requestIdOf } from './request-id';

const TTL_SECONDS = 24 * 60 * 60;
const REPLAYED_HEADERS = ['content-type', 'location', 'cache-control'];
/** Kept with a stored answer, never sent: which of its fields are sealed. */
const SEALED_FIELDS_HEADER = 'x-idempotency-sealed-fields';

/**
 * Marks fields of this answer as secrets (an API key shown once): the stored copy keeps them sealed under
 * SECRETS_ENCRYPTION_KEY, bound to the principal and key, and a replay opens them. Without that key a replay
 * carries null in their place.
 */
export function storeSealed(res: Response, fields: readonly string[]): void {
  res.locals.idempotencySealedFields = fields;
}

/** The answer as it is stored: the marked fields sealed (or null when nothing can seal them). */
function sealFields(
  text: string,
  fields: readonly string[] | undefined,
  box: SecretBox,
  context: string,
): { body: string; sealed: string[] } {
  if (!fields || fields.length === 0) return { body: text, sealed: [] };
  const body = JSON.parse(text) as Record<string, unknown>;
  const present = fields.filter((field) => typeof body[field] === 'string');
  for (const field of present)
    body[field] = box.canSeal ? box.seal(body[field] as string, `${context}:${field}`) : null;
  return { body: JSON.stringify(body), sealed: box.canSeal ? present : [] };
}

/** The stored answer as it is replayed: its sealed fields opened. */
function openFields(text: string, sealed: string | undefined, box: SecretBox, context: string): string {
  if (!sealed) return text;
  const body = JSON.parse(text) as Record<string, unknown>;
  for (const field of sealed.split(',')) body[field] = box.open(body[field] as string, `${context}:${field}`);
  return JSON.stringify(body);
}

/**
 * Answers given before the operation began (the request was refused as it stood) or that say nothing about
 * its outcome (a server error): the key is released so that a corrected or later retry runs, as Stripe does.
 */
function releasesKey(status: number): boolean {
  return (
    status >= 500 ||
    status === 400 ||
    status === 401 ||
    status === 403 ||
    status === 413 ||
    status === 415 ||
    status === 429
  );
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
export function idempotency(deps: {
  db: Knex;
  logger: Logger;
  requestTimeoutMs: number;
  secretKeys?: SecretKeys | undefined;
}): RequestHandler {
  const lockSeconds = idempotencyLockSeconds(deps.requestTimeoutMs);
  const box = createSecretBox(deps.secretKeys ?? { previous: [] });
  return async (req, res, next) => {
    const key = req.get('idempotency-key');
    if (key === undefined) {
      next();
      return;
    }
    if (!IdempotencyKeySchema.safeParse(key).success) {
      throw new Problem('validation_failed', 'Idempotency-Key must be 1 to 255 visible ASCII characters', {
        errors: [
          { field: 'Idempotency-Key', code: 'invalid_format', message: 'must be 1 to 255 visible ASCII characters' },
        ],
      });
    }
    const principal = principalOf(res)?.id ?? `ip:${req.ip ?? 'unknown'}`;
    const fingerprint = createHash('sha256')
      .update(`${req.method} ${req.baseUrl}${req.path}\n${canonicalJson(req.body ?? null)}`)
      .digest('hex');
    const scope = { principal, key };
    const sealingContext = `idempotency:${principal}:${key}`;
    const claim = await claimIdempotencyKey(deps.db, { ...scope, fingerprint, lockSeconds, ttlSeconds: TTL_SECONDS });

    switch (claim.state) {
      case 'mismatch':
        throw new Problem(
          'idempotency_key_reused',
          'This Idempotency-Key was first used with a different request; use a new key for a new request',
        );
      case 'in_flight':
        throw new Problem(
          'idempotency_request_in_flight',
          'The first request with this Idempotency-Key has not finished; retry after a moment',
          {
            headers: { 'Retry-After': String(claim.retryAfterSeconds) },
          },
        );
      case 'completed': {
        const { [SEALED_FIELDS_HEADER]: sealed, ...headers } = claim.response.headers;
        res
          .set(headers)
          .set('Idempotent-Replayed', 'true')
          .status(claim.response.status)
          .send(openFields(claim.response.body, sealed, box, sealingContext));
        return;
      }
      case 'claimed':
        break;
    }

    const send = res.send.bind(res);
    res.send = (body?: unknown) => {
      // The deadline's 503 leaves the key claimed until its lock lapses: the handler may still be finishing.
      if (answeredByDeadline(res)) return res.headersSent ? res : send(body);
      const text =
        typeof body === 'string'
          ? body
          : Buffer.isBuffer(body)
            ? body.toString('utf8')
            : body === undefined
              ? ''
              : JSON.stringify(body);
      const stored =
        res.statusCode < 300
          ? sealFields(text, res.locals.idempotencySealedFields as string[] | undefined, box, sealingContext)
          : { body: text, sealed: [] };
      const finish = releasesKey(res.statusCode)
        ? releaseIdempotencyKey(deps.db, scope)
        : completeIdempotencyKey(deps.db, scope, {
            status: res.statusCode,
            headers: {
              ...Object.fromEntries(
                REPLAYED_HEADERS.flatMap((name) => (res.get(name) ? [[name, res.get(name) as string]] : [])),
              ),
              ...(stored.sealed.length > 0 ? { [SEALED_FIELDS_HEADER]: stored.sealed.join(',') } : {}),
            },
            body: stored.body,
          });
      const recorded = finish.catch((error: unknown) =>
        deps.logger.error('idempotency record failed', { request_id: requestIdOf(res), error }),
      );
      // A server error is sent at once: its release may wait on the very dependency that failed (the lock lapses anyway).
      if (res.statusCode >= 500) send(text);
      else void recorded.finally(() => send(text));
      return res;
    };
    // A client that hangs up before the answer leaves the key claimed until its lock lapses.
    next();
  };
}

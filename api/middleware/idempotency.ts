import { createHash } from 'node:crypto';
import type { Request, RequestHandler, Response } from 'express';
import type { Knex } from 'knex';
import {
  claimIdempotencyKey,
  completeIdempotencyKey,
  releaseIdempotencyKey,
  type ClaimResult,
} from '../../db/idempotency';
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

/** What one request's claim on its key needs to finish: where the answer is stored, and what seals its secrets. */
interface KeyClaim {
  db: Knex;
  logger: Logger;
  box: SecretBox;
  scope: { principal: string; key: string };
  sealingContext: string;
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
    const claim: KeyClaim = {
      db: deps.db,
      logger: deps.logger,
      box,
      scope: { principal, key },
      sealingContext: `idempotency:${principal}:${key}`,
    };
    const earlier = await claimIdempotencyKey(deps.db, {
      ...claim.scope,
      fingerprint: fingerprintOf(req),
      lockSeconds,
      ttlSeconds: TTL_SECONDS,
    });
    if (earlier.state !== 'claimed') {
      answerEarlierClaim(res, earlier, claim);
      return;
    }
    storeBeforeSending(res, claim);
    // A client that hangs up before the answer leaves the key claimed until its lock lapses.
    next();
  };
}

function fingerprintOf(req: Request): string {
  return createHash('sha256')
    .update(`${req.method} ${req.baseUrl}${req.path}\n${canonicalJson(req.body ?? null)}`)
    .digest('hex');
}

/** A key another request holds: a different request (refused), one not finished (retry later), or a stored answer (replayed). */
function answerEarlierClaim(
  res: Response,
  earlier: Exclude<ClaimResult, { state: 'claimed' }>,
  { box, sealingContext }: KeyClaim,
): void {
  if (earlier.state === 'mismatch')
    throw new Problem(
      'idempotency_key_reused',
      'This Idempotency-Key was first used with a different request; use a new key for a new request',
    );
  if (earlier.state === 'in_flight')
    throw new Problem(
      'idempotency_request_in_flight',
      'The first request with this Idempotency-Key has not finished; retry after a moment',
      { headers: { 'Retry-After': String(earlier.retryAfterSeconds) } },
    );
  const { [SEALED_FIELDS_HEADER]: sealed, ...headers } = earlier.response.headers;
  res
    .set(headers)
    .set('Idempotent-Replayed', 'true')
    .status(earlier.response.status)
    .send(openFields(earlier.response.body, sealed, box, sealingContext));
}

/** Wraps res.send so that the answer is stored under the key (or the key released) before it goes out. */
function storeBeforeSending(res: Response, claim: KeyClaim): void {
  const send = res.send.bind(res);
  res.send = (body?: unknown) => {
    // The deadline's 503 leaves the key claimed until its lock lapses: the handler may still be finishing.
    if (answeredByDeadline(res)) return res.headersSent ? res : send(body);
    const text = bodyText(body);
    const recorded = finishClaim(res, text, claim).catch((error: unknown) =>
      claim.logger.error('idempotency record failed', { request_id: requestIdOf(res), error }),
    );
    // A server error is sent at once: its release may wait on the very dependency that failed (the lock lapses anyway).
    if (res.statusCode >= 500) send(text);
    else void recorded.finally(() => send(text));
    return res;
  };
}

function bodyText(body: unknown): string {
  if (typeof body === 'string') return body;
  if (Buffer.isBuffer(body)) return body.toString('utf8');
  return body === undefined ? '' : JSON.stringify(body);
}

/** Stores the answer for replays, its marked fields sealed; or releases the key when the answer allows a retry. */
function finishClaim(res: Response, text: string, { db, box, scope, sealingContext }: KeyClaim): Promise<void> {
  if (releasesKey(res.statusCode)) return releaseIdempotencyKey(db, scope);
  const stored =
    res.statusCode < 300
      ? sealFields(text, res.locals.idempotencySealedFields as string[] | undefined, box, sealingContext)
      : { body: text, sealed: [] };
  return completeIdempotencyKey(db, scope, {
    status: res.statusCode,
    headers: {
      ...Object.fromEntries(
        REPLAYED_HEADERS.flatMap((name) => (res.get(name) ? [[name, res.get(name) as string]] : [])),
      ),
      ...(stored.sealed.length > 0 ? { [SEALED_FIELDS_HEADER]: stored.sealed.join(',') } : {}),
    },
    body: stored.body,
  });
}

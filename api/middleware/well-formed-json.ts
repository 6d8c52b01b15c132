import type { RequestHandler } from 'express';
import { loneSurrogatePath } from '../../domain/canonical-json';
import { Problem } from '../problem';

/** A path segment as a field name: a key that holds the lone surrogate itself is shown escaped. */
const fieldSegment = (segment: string | number) => (typeof segment === 'number' ? String(segment) : JSON.stringify(segment).slice(1, -1));

/**
 * Refuses a JSON body with a lone surrogate (a \ud800 escape with no pair) in a key or a string: JSON
 * allows it, I-JSON (RFC 7493 2.1) does not, and neither the idempotency fingerprint nor the ledger can
 * canonicalize it, so it is the client's mistake to say so at once rather than a failure later.
 */
export function requireWellFormedStrings(): RequestHandler {
  return (req, _res, next) => {
    const path = loneSurrogatePath(req.body);
    if (!path) return next();
    const field = path.map(fieldSegment).join('.');
    throw new Problem('validation_failed', `The body holds a lone surrogate at ${field || 'its root'}; JSON strings must be well-formed Unicode (I-JSON, RFC 7493)`, {
      errors: [{ field, code: 'lone_surrogate', message: 'holds a lone surrogate: a UTF-16 surrogate without its pair' }],
    });
  };
}

import type { RequestHandler } from 'express';
import { isStorableText, UNSTORABLE } from '../../domain/common/storable-text';
import { Problem, type FieldError } from '../problem';

const UNSTORABLE_EACH = new RegExp(UNSTORABLE.source, 'g');
const UNSTORABLE_MESSAGE = 'must not contain U+0000 or an unpaired UTF-16 surrogate';

/** More field errors than this say nothing more to a client, and would only grow the answer. */
const MAX_ERRORS = 20;

/** The request headers whose values reach the database (stored, or looked up); the rest are read and dropped. */
const STORED_HEADERS = ['idempotency-key', 'x-agent-id'] as const;

/** A key as part of a field name, with the characters refused escaped, so that the problem itself stays storable text. */
function segment(key: string): string {
  return key.replace(UNSTORABLE_EACH, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/**
 * What of a parsed value (a JSON body, or the query, path parameters or headers) cannot be taken, as field
 * errors named the way validation names fields: strings and keys PostgreSQL cannot store, numbers that are
 * not finite (JSON.parse turns 1e999 into Infinity), containers nested deeper than maxDepth (the value itself
 * is level 1). Iterative, so that no depth of input can exhaust the stack.
 */
export function unacceptableValues(value: unknown, options: { location: string; maxDepth?: number }): FieldError[] {
  const maxDepth = options.maxDepth ?? Infinity;
  const errors: FieldError[] = [];
  const pending: Array<{ value: unknown; field: string; level: number }> = [
    { value, field: options.location, level: 1 },
  ];
  while (pending.length > 0 && errors.length < MAX_ERRORS) {
    const { value: current, field, level } = pending.pop()!;
    if (typeof current === 'string') {
      if (!isStorableText(current)) errors.push({ field, code: 'invalid_format', message: UNSTORABLE_MESSAGE });
    } else if (typeof current === 'number') {
      if (!Number.isFinite(current)) errors.push({ field, code: 'invalid_type', message: 'must be a finite number' });
    } else if (typeof current === 'object' && current !== null) {
      if (level > maxDepth) {
        errors.push({ field, code: 'too_big', message: `nests deeper than ${maxDepth} levels` });
        continue;
      }
      const entries = Array.isArray(current)
        ? current.map((item: unknown, index) => [String(index), item] as const)
        : Object.entries(current);
      // Pushed in reverse, so that the values are looked at in the order of the document.
      for (const [key, item] of entries.reverse()) {
        const childField = field ? `${field}.${segment(key)}` : segment(key);
        if (!isStorableText(key))
          errors.push({ field: childField, code: 'invalid_key', message: `the key ${UNSTORABLE_MESSAGE}` });
        pending.push({ value: item, field: childField, level: level + 1 });
      }
    }
  }
  return errors.slice(0, MAX_ERRORS);
}

function refuse(errors: FieldError[], where: string): void {
  if (errors.length > 0)
    throw new Problem('validation_failed', `The ${where} has ${errors.length} invalid field(s)`, { errors });
}

/**
 * Right after the body parsers, before anything reads the body (the idempotency fingerprint, a route's
 * schema): a body that cannot be stored or nests too deep is refused whatever the route and headers.
 */
export function guardBody(options: { maxDepth: number }): RequestHandler {
  return (req, _res, next) => {
    if (req.body !== undefined)
      refuse(unacceptableValues(req.body, { location: '', maxDepth: options.maxDepth }), 'body');
    next();
  };
}

/** The first step of every route: its query, path parameters and stored headers, before any of them is used. */
export const guardParameters: RequestHandler = (req, _res, next) => {
  const headers = Object.fromEntries(
    STORED_HEADERS.flatMap((name) => (req.headers[name] === undefined ? [] : [[name, req.headers[name]]])),
  );
  refuse(
    [
      ...unacceptableValues(req.query, { location: 'query' }),
      ...unacceptableValues(req.params, { location: 'path' }),
      ...unacceptableValues(headers, { location: 'header' }),
    ].slice(0, MAX_ERRORS),
    'request',
  );
  next();
};

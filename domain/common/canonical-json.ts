/** Why a value has no canonical JSON form, and where in it the trouble is (`$`, `$.a[0]`, `$["odd key"]`). */
export class CanonicalJsonError extends TypeError {
  override name = 'CanonicalJsonError';

  constructor(
    reason: string,
    readonly path: string,
  ) {
    super(`canonical JSON ${reason} (at ${path})`);
  }
}

type PathSegment = string | number;

/**
 * Where in the value serialize is, as a chain to the root: built at no cost per member, turned into text
 * only for an error.
 */
interface Path {
  parent?: Path;
  segment?: PathSegment;
}

const ROOT: Path = {};

function formatPath(path: Path): string {
  const segments: PathSegment[] = [];
  for (let at: Path | undefined = path; at?.segment !== undefined; at = at.parent) segments.unshift(at.segment);
  return (
    '$' +
    segments
      .map((segment) =>
        typeof segment === 'number'
          ? `[${segment}]`
          : /^[A-Za-z_$][\w$]*$/.test(segment)
            ? `.${segment}`
            : `[${JSON.stringify(segment)}]`,
      )
      .join('')
  );
}

/** A high surrogate not followed by a low one, or a low surrogate not preceded by a high one. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** Any surrogate: a string without one (almost every string) needs no closer look. */
const SURROGATE = /[\uD800-\uDFFF]/;

/** The first lone surrogate of a string, as U+XXXX, or undefined when the string is well-formed UTF-16. */
export function loneSurrogateIn(text: string): string | undefined {
  if (!SURROGATE.test(text)) return undefined;
  const match = LONE_SURROGATE.exec(text);
  return match ? `U+${match[0].charCodeAt(0).toString(16).toUpperCase()}` : undefined;
}

function toJsonMethod(value: unknown): ((key: string) => unknown) | undefined {
  if ((typeof value !== 'object' || value === null) && typeof value !== 'function' && typeof value !== 'bigint')
    return undefined;
  const toJSON = (value as { toJSON?: unknown }).toJSON;
  return typeof toJSON === 'function' ? (toJSON as (key: string) => unknown) : undefined;
}

/** The path of a member: made only where it is needed (an error, or a container to walk into), not per member. */
const pathTo = (parent: Path, segment: PathSegment | undefined): Path =>
  segment === undefined ? parent : { parent, segment };

/**
 * What JSON.stringify serializes in place of a value (SerializeJSONProperty): toJSON(key)'s result, primitives
 * unboxed. The value is at `segment` under `parent` (the root has no segment).
 */
function jsonValueOf(value: unknown, key: string, parent: Path, segment?: PathSegment): unknown {
  const type = typeof value;
  // Strings, numbers, booleans and undefined (nearly every value) have no toJSON of their own to call.
  if (value === null || (type !== 'object' && type !== 'function' && type !== 'bigint')) return value;
  let current: unknown = value;
  const toJSON = toJsonMethod(current);
  if (toJSON) {
    current = toJSON.call(current, key);
    // JSON.stringify calls toJSON once per position: a result with its own toJSON (a Date) would be written as {}.
    if (toJsonMethod(current))
      throw new CanonicalJsonError(
        'refuses a toJSON result that has a toJSON of its own',
        formatPath(pathTo(parent, segment)),
      );
  }
  // Their entries are not own properties, so JSON.stringify would write {}.
  if (current instanceof Map || current instanceof Set)
    throw new CanonicalJsonError(
      `cannot represent a ${current instanceof Map ? 'Map' : 'Set'}`,
      formatPath(pathTo(parent, segment)),
    );
  if (current instanceof Number) return Number(current);
  if (current instanceof String) return String(current);
  if (current instanceof Boolean) return current.valueOf();
  return current;
}

/** What JSON.stringify would escape in a string, and surrogates: a string with none is written as it is, in quotes. */
// eslint-disable-next-line no-control-regex -- control characters are what JSON.stringify escapes
const NEEDS_A_CLOSER_LOOK = /["\\\u0000-\u001f\uD800-\uDFFF]/;

function serializeString(text: string, parent: Path, segment?: PathSegment): string {
  if (!NEEDS_A_CLOSER_LOOK.test(text)) return `"${text}"`;
  const lone = loneSurrogateIn(text);
  // RFC 8785 3.1: input must be I-JSON, whose strings are well-formed Unicode; a lone surrogate has no UTF-8 form.
  if (lone)
    throw new CanonicalJsonError(
      `refuses a string with a lone surrogate (${lone})`,
      formatPath(pathTo(parent, segment)),
    );
  return JSON.stringify(text);
}

/** A value as JSON.stringify would read it (see jsonValueOf), at `segment` under `parent`. */
function serialize(value: unknown, parent: Path, segment: PathSegment | undefined, open: Set<object>): string {
  if (value === null) return 'null';
  switch (typeof value) {
    case 'boolean':
      return value ? 'true' : 'false';
    case 'string':
      return serializeString(value, parent, segment);
    case 'number':
      if (!Number.isFinite(value))
        throw new CanonicalJsonError('has no representation for NaN or Infinity', formatPath(pathTo(parent, segment)));
      // A finite number as JSON.stringify writes it (Number::toString).
      return String(value);
    case 'object':
      break;
    default:
      throw new CanonicalJsonError(`cannot represent a ${typeof value}`, formatPath(pathTo(parent, segment)));
  }
  const path = pathTo(parent, segment);
  if (open.has(value))
    throw new CanonicalJsonError('cannot represent a structure that contains itself', formatPath(path));
  open.add(value);
  const text = Array.isArray(value) ? serializeArray(value, path, open) : serializeObject(value, path, open);
  open.delete(value);
  return text;
}

function serializeArray(items: unknown[], path: Path, open: Set<object>): string {
  let text = '[';
  for (let index = 0; index < items.length; index += 1) {
    const json = jsonValueOf(items[index], String(index), path, index);
    if (index > 0) text += ',';
    text += json === undefined ? 'null' : serialize(json, path, index, open);
  }
  return `${text}]`;
}

/** Members read in their own order (toJSON called, errors found, as before sorting), written sorted by key. */
function serializeObject(value: object, path: Path, open: Set<object>): string {
  const keys = Object.keys(value);
  const values: unknown[] = new Array(keys.length);
  for (let index = 0; index < keys.length; index += 1)
    values[index] = jsonValueOf((value as Record<string, unknown>)[keys[index]!], keys[index]!, path, keys[index]);
  const order = keys.map((_, index) => index);
  order.sort((a, b) => (keys[a]! < keys[b]! ? -1 : keys[a]! > keys[b]! ? 1 : 0));
  let text = '{';
  for (const index of order) {
    const json = values[index];
    if (json === undefined) continue;
    const key = keys[index]!;
    if (text.length > 1) text += ',';
    text += `${serializeString(key, path, key)}:${serialize(json, path, key, open)}`;
  }
  return `${text}}`;
}

/**
 * JSON canonicalization after RFC 8785 (JCS): object keys sorted by UTF-16 code units, no whitespace,
 * numbers and strings as ECMAScript serializes them. Hashes over records are taken over this form, so the
 * same record always hashes the same, whatever order its keys were built in.
 *
 * A value is read as JSON.stringify reads it (toJSON(key) first, so a Date is its ISO string; boxed
 * primitives unboxed; undefined members left out), so that canonicalizing the parsed JSON text of a value
 * gives the same form as the value itself. What JSON.stringify would drop or empty silently (functions,
 * symbols, a Map, a Set, a toJSON result with a toJSON of its own) or JSON cannot hold (bigints, NaN,
 * cycles, lone surrogates) throws a CanonicalJsonError instead: a hashed record must not lose or change a
 * member on its way to the ledger.
 */
export function canonicalJson(value: unknown): string {
  const json = jsonValueOf(value, '', ROOT);
  if (json === undefined) throw new CanonicalJsonError('cannot represent undefined', '$');
  return serialize(json, ROOT, undefined, new Set());
}

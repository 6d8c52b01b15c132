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

/** What JSON.stringify serializes in place of a value (SerializeJSONProperty): toJSON(key)'s result, primitives unboxed. */
function jsonValueOf(value: unknown, key: string, path: Path): unknown {
  let current = value;
  const toJSON = toJsonMethod(current);
  if (toJSON) {
    current = toJSON.call(current, key);
    // JSON.stringify calls toJSON once per position: a result with its own toJSON (a Date) would be written as {}.
    if (toJsonMethod(current))
      throw new CanonicalJsonError('refuses a toJSON result that has a toJSON of its own', formatPath(path));
  }
  // Their entries are not own properties, so JSON.stringify would write {}.
  if (current instanceof Map || current instanceof Set)
    throw new CanonicalJsonError(`cannot represent a ${current instanceof Map ? 'Map' : 'Set'}`, formatPath(path));
  if (current instanceof Number) return Number(current);
  if (current instanceof String) return String(current);
  if (current instanceof Boolean) return current.valueOf();
  return current;
}

function serializeString(text: string, path: Path): string {
  const lone = loneSurrogateIn(text);
  // RFC 8785 3.1: input must be I-JSON, whose strings are well-formed Unicode; a lone surrogate has no UTF-8 form.
  if (lone) throw new CanonicalJsonError(`refuses a string with a lone surrogate (${lone})`, formatPath(path));
  return JSON.stringify(text);
}

function serialize(value: unknown, path: Path, open: Set<object>): string {
  if (value === null || typeof value === 'boolean') return JSON.stringify(value);
  if (typeof value === 'string') return serializeString(value, path);
  if (typeof value === 'number') {
    if (!Number.isFinite(value))
      throw new CanonicalJsonError('has no representation for NaN or Infinity', formatPath(path));
    return JSON.stringify(value);
  }
  if (typeof value !== 'object') throw new CanonicalJsonError(`cannot represent a ${typeof value}`, formatPath(path));
  if (open.has(value))
    throw new CanonicalJsonError('cannot represent a structure that contains itself', formatPath(path));
  open.add(value);
  let text: string;
  if (Array.isArray(value)) {
    text = `[${value
      .map((item, index) => {
        const at = { parent: path, segment: index };
        const json = jsonValueOf(item, String(index), at);
        return json === undefined ? 'null' : serialize(json, at, open);
      })
      .join(',')}]`;
  } else {
    const members: Array<[string, unknown, Path]> = [];
    for (const [key, item] of Object.entries(value)) {
      const at = { parent: path, segment: key };
      const json = jsonValueOf(item, key, at);
      if (json !== undefined) members.push([key, json, at]);
    }
    members.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    text = `{${members.map(([key, item, at]) => `${serializeString(key, at)}:${serialize(item, at, open)}`).join(',')}}`;
  }
  open.delete(value);
  return text;
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
  return serialize(json, ROOT, new Set());
}

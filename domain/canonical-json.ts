/**
 * JSON canonicalization after RFC 8785 (JCS): object keys sorted by UTF-16 code units, no whitespace,
 * numbers and strings as ECMAScript serializes them. Hashes over records are taken over this form, so the
 * same record always hashes the same, whatever order its keys were built in.
 */
/** A value canonical JSON has no form for: the record itself is at fault, so no retry can mend it. */
export class CanonicalJsonError extends TypeError {
  override name = 'CanonicalJsonError';
}

export function canonicalJson(value: unknown): string {
  if (value === null || typeof value === 'boolean' || typeof value === 'string') return JSON.stringify(value);
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new CanonicalJsonError('canonical JSON has no representation for NaN or Infinity');
    return JSON.stringify(value);
  }
  if (Array.isArray(value)) return `[${value.map((item) => canonicalJson(item === undefined ? null : item)).join(',')}]`;
  if (typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  throw new CanonicalJsonError(`canonical JSON cannot represent a ${typeof value}`);
}

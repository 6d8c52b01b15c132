/**
 * PostgreSQL stores no NUL character in text or jsonb, and jsonb no lone UTF-16 surrogate. A value holding
 * one can never be stored, however often it is retried, so it is refused where it arrives.
 */

// eslint-disable-next-line no-control-regex -- the NUL character is exactly what Postgres refuses
export const UNSTORABLE = /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

export function isStorableText(value: string): boolean {
  return !UNSTORABLE.test(value);
}

/** Where in a value (a JSON path) a string Postgres cannot store sits, or undefined when every string is storable. */
export function unstorableText(value: unknown, path = '$'): string | undefined {
  if (typeof value === 'string') return UNSTORABLE.test(value) ? path : undefined;
  if (Array.isArray(value)) {
    for (const [index, item] of value.entries()) {
      const found = unstorableText(item, `${path}[${index}]`);
      if (found) return found;
    }
    return undefined;
  }
  if (value !== null && typeof value === 'object') {
    for (const [key, item] of Object.entries(value)) {
      if (UNSTORABLE.test(key)) return `${path} (a key)`;
      const found = unstorableText(item, `${path}.${key}`);
      if (found) return found;
    }
  }
  return undefined;
}

/** The refusal of a value holding a string Postgres cannot store, or undefined when it can be stored. */
export function unstorableRefusal(value: unknown, what: string): string | undefined {
  const at = unstorableText(value);
  return at === undefined
    ? undefined
    : `The ${what} holds text that cannot be stored (a NUL character or a lone surrogate) at ${at}`;
}

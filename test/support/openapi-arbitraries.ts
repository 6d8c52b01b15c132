import fc from 'fast-check';
import { resolveSchema, type JsonSchema, type OpenApiDocument } from './openapi-document';

/** JSON text spliced into a body as it is: what JSON.stringify cannot write (1e999, nesting 10,000 deep). */
export class RawJson {
  constructor(
    readonly text: string,
    /** How a failure message shows it. */
    readonly shown: string,
  ) {}

  [fc.toStringMethod](): string {
    return this.shown;
  }
}

/** Serializes a generated value, RawJson included. Object keys go through JSON.stringify, so NUL and lone surrogates are escaped. */
export function jsonText(value: unknown): string {
  if (value instanceof RawJson) return value.text;
  if (Array.isArray(value)) return `[${value.map(jsonText).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    return `{${Object.keys(value)
      .filter((key) => (value as Record<string, unknown>)[key] !== undefined)
      .map((key) => `${JSON.stringify(key)}:${jsonText((value as Record<string, unknown>)[key])}`)
      .join(',')}}`;
  }
  return JSON.stringify(value);
}

/** A unit repeated ten times or more: shown as ⟪"unit" × n⟫, so a 300,000-character value stays readable and reproducible. */
const RUN = /(.{1,64}?)\1{9,}/gsu;

/** Control characters and lone surrogates. */
// eslint-disable-next-line no-control-regex -- control characters are what it finds
const UNPRINTABLE = /[\u0000-\u001f\u007f]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

/** Text for failure messages: runs shortened, control characters and lone surrogates escaped, the rest as it is. */
export function shownText(value: string): string {
  const escaped = (text: string) =>
    text.replace(UNPRINTABLE, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`);
  let shown = '';
  let last = 0;
  for (const run of value.matchAll(RUN)) {
    shown += `${escaped(value.slice(last, run.index))}⟪${JSON.stringify(run[1])} × ${run[0].length / run[1]!.length}⟫`;
    last = run.index + run[0].length;
  }
  return shown + escaped(value.slice(last));
}

/** A string as a JSON literal for failure messages, runs shortened as shownText does. */
export function shownString(value: string): string {
  let shown = '';
  let last = 0;
  for (const run of value.matchAll(RUN)) {
    shown += `${JSON.stringify(value.slice(last, run.index)).slice(1, -1)}⟪${JSON.stringify(run[1])} × ${run[0].length / run[1]!.length}⟫`;
    last = run.index + run[0].length;
  }
  return `"${shown}${JSON.stringify(value.slice(last)).slice(1, -1)}"`;
}

/** A generated value as JSON for failure messages, with long runs and RawJson shown short. */
export function shownJson(value: unknown): string {
  if (value instanceof RawJson) return value.shown;
  if (typeof value === 'string') return shownString(value);
  if (Array.isArray(value)) return `[${value.map(shownJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    return `{${Object.keys(value)
      .filter((key) => (value as Record<string, unknown>)[key] !== undefined)
      .map((key) => `${shownString(key)}:${shownJson((value as Record<string, unknown>)[key])}`)
      .join(',')}}`;
  }
  return JSON.stringify(value);
}

function nested(depth: number, kind: 'array' | 'object'): RawJson {
  return kind === 'array'
    ? new RawJson(`${'['.repeat(depth)}${']'.repeat(depth)}`, `⟪[ × ${depth}, ] × ${depth}⟫`)
    : new RawJson(`${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`, `⟪{"a": × ${depth}, 1, } × ${depth}⟫`);
}

/** Values no schema admits, or that test the edges of what parsers, databases and JSON can carry. */
export const HOSTILE = {
  strings: [
    '\u0000',
    'a\u0000b',
    '\ud800',
    '\udfff',
    'x\udc00y',
    '\ud83d',
    '\ufeff',
    '\u202e',
    '\r\n',
    '\t',
    ' ',
    '',
    "'; drop table x; --",
    '%00',
    '%',
    '../../etc/passwd',
    '${x}',
    '<script>',
    '\\',
    '"',
    'e\u0301',
    '😀',
    'null',
    'NaN',
    '-1',
  ],
  /** One character repeated: within the body limit, and beyond it. */
  huge: [
    ['x', 100_000],
    ['\u0000', 10_000],
    ['😀', 20_000],
    ['x', 300_000],
  ] as Array<[string, number]>,
  /** Long, but each well under the 16 KiB the HTTP server allows for the request line and headers together, even percent-encoded. */
  hugeParameter: [
    ['x', 4_000],
    ['\u0000', 1_000],
    ['😀', 300],
  ] as Array<[string, number]>,
  timestamps: [
    '2026-11-01T00:00:00+99:00',
    '2026-11-01T00:00:00-99:59',
    '2026-11-01T00:00:00+16:00',
    '2026-11-01T00:00:00+23:59',
    '2026-11-01T00:00:00-15:59',
    '2026-02-30T00:00:00Z',
    '2026-13-01T00:00:00Z',
    '2026-11-01T24:00:00Z',
    '2026-12-31T23:59:60Z',
    '0000-01-01T00:00:00Z',
    '9999-12-31T23:59:59.999999999Z',
    '+275760-09-13T00:00:00Z',
    '-000001-01-01T00:00:00Z',
    '2026-11-01',
    '2026-11-01T00:00:00',
    '2026-11-01 00:00:00Z',
    'now',
    '1730419200',
    'infinity',
  ],
  numbers: [
    new RawJson('1e999', '⟪1e999⟫'),
    new RawJson('-1e999', '⟪-1e999⟫'),
    new RawJson('-0', '⟪-0⟫'),
    new RawJson('123456789012345678901234567890', '⟪123456789012345678901234567890⟫'),
    new RawJson('1e-400', '⟪1e-400⟫'),
    Number.MAX_SAFE_INTEGER + 2,
    -Number.MAX_VALUE,
    Number.MIN_VALUE,
    2 ** 31,
    -(2 ** 63),
    0.5,
  ],
  nesting: [nested(1_000, 'array'), nested(10_000, 'array'), nested(1_000, 'object'), nested(10_000, 'object')],
  keys: ['__proto__', 'constructor', 'a\u0000b', '\ud800', '', 'unknown_field', 'x'.repeat(10_000)],
};

const repeated = ([unit, count]: [string, number]) => unit.repeat(count);

/** Hostile values for any node; a parameter's stay within the HTTP server's header limit and carry no nesting, which means nothing in a URL. */
function hostileValues(parameter: boolean) {
  const huge = fc.constantFrom(...(parameter ? HOSTILE.hugeParameter : HOSTILE.huge)).map(repeated);
  const string = fc.oneof(
    { weight: 4, arbitrary: fc.constantFrom(...HOSTILE.strings) },
    { weight: 1, arbitrary: fc.constantFrom(...HOSTILE.timestamps) },
    { weight: 1, arbitrary: huge },
  );
  const literal = fc.oneof(
    fc.constantFrom<unknown>('x', 12345, true, null, [], {}, [null]),
    fc.constantFrom(...HOSTILE.numbers),
    ...(parameter ? [] : [fc.constantFrom(...HOSTILE.nesting)]),
    string,
  );
  return { string, literal };
}

/**
 * Arbitraries made once per key for the whole file: building a string arbitrary (fc.string, fc.stringMatching)
 * costs about a millisecond, and a request body's schema asks for hundreds of them.
 */
const madeOnce = new Map<string, fc.Arbitrary<unknown>>();
function once<T>(key: string, make: () => fc.Arbitrary<T>): fc.Arbitrary<T> {
  let arbitrary = madeOnce.get(key);
  if (!arbitrary) {
    arbitrary = make();
    madeOnce.set(key, arbitrary);
  }
  return arbitrary as fc.Arbitrary<T>;
}

/** Text that reads as written: printable ASCII mostly, other Unicode sometimes, never NUL or a lone surrogate. */
function plainString(minLength: number, maxLength: number): fc.Arbitrary<string> {
  const upper = Math.min(maxLength, minLength + 24);
  return once(`plain ${minLength} ${maxLength}`, () =>
    fc
      .oneof(
        { weight: 4, arbitrary: fc.string({ unit: 'grapheme-ascii', minLength, maxLength: upper }) },
        { weight: 1, arbitrary: fc.string({ unit: 'grapheme', minLength, maxLength: upper }) },
      )
      .filter((value) => value.length >= minLength && value.length <= maxLength && value.search(UNPRINTABLE) === -1),
  );
}

const matching = (pattern: string): fc.Arbitrary<string> =>
  once(`pattern ${pattern}`, () => fc.stringMatching(new RegExp(pattern, 'u')));
const propertyName = matching('^[a-z][a-z0-9_]{0,11}$');

const dnsLabel = fc.stringMatching(/^[a-z][a-z0-9-]{0,14}[a-z0-9]$/);
const urlPath = fc.stringMatching(/^(\/[A-Za-z0-9._~-]{0,12}){0,3}$/);

/** Values for each format of FORMATS; URIs stay on reserved names (RFC 2606) or the given destinations, so nothing reaches the internet. */
const FORMAT_ARBITRARIES: Record<string, fc.Arbitrary<string>> = {
  // UTC, the offsets in use (whole quarters up to ±14:00), and any RFC 3339 admits (to ±23:59).
  'date-time': fc
    .tuple(
      fc.date({ min: new Date('2000-01-01T00:00:00Z'), max: new Date('2099-12-31T23:59:59Z'), noInvalidDate: true }),
      fc.oneof(
        fc.constant(0),
        fc.integer({ min: -56, max: 56 }).map((quarters) => quarters * 15),
        { weight: 2, arbitrary: fc.integer({ min: -1439, max: 1439 }) },
      ),
    )
    .map(([date, offsetMinutes]) => {
      if (offsetMinutes === 0) return date.toISOString();
      const local = new Date(date.getTime() + offsetMinutes * 60_000).toISOString().slice(0, 19);
      const sign = offsetMinutes < 0 ? '-' : '+';
      const abs = Math.abs(offsetMinutes);
      return `${local}${sign}${String(Math.floor(abs / 60)).padStart(2, '0')}:${String(abs % 60).padStart(2, '0')}`;
    }),
  date: fc
    .date({ min: new Date('2000-01-01T00:00:00Z'), max: new Date('2099-12-31T00:00:00Z'), noInvalidDate: true })
    .map((date) => date.toISOString().slice(0, 10)),
  uri: fc
    .tuple(fc.constantFrom('https', 'http'), dnsLabel, fc.constantFrom('example', 'test', 'invalid'), urlPath)
    .map(([scheme, label, tld, path]) => `${scheme}://${label}.${tld}${path}`),
  uuid: fc.uuid(),
  email: fc.tuple(dnsLabel, dnsLabel).map(([user, host]) => `${user}@${host}.example`),
};

export interface SchemaArbitraryOptions {
  /** Mix values the schema forbids (and values that test parsers) into the valid ones. */
  hostile: boolean;
  /** The value goes into a URL or a header rather than a body. */
  parameter?: boolean;
  /** Origins (a local receiver) that URIs use as often as names that never resolve, so that calls out can succeed. */
  destinations?: readonly string[];
}

/** Below this depth objects carry only their required properties and arrays their fewest items. */
const MAX_DEPTH = 6;
/** A schema that still needs values this deep requires itself: no finite value is valid. */
const REQUIRED_DEPTH_LIMIT = 4 * MAX_DEPTH;
/** In hostile mode, one node in HOSTILE_ODDS + 1 is hostile. */
const HOSTILE_ODDS = 5;
/** For fc.oneof: a shrunk counterexample may move to the first choice (the plainer one). */
export const SHRINK_TO_FIRST = { withCrossShrink: true } as const;

/**
 * Builds values for a schema of the document: valid ones (types, enums, formats, patterns, bounds, required
 * and optional properties, nested objects and arrays, allOf / anyOf / oneOf, references), and in hostile mode
 * hostile ones mixed in at every node.
 */
export function schemaArbitrary(
  document: OpenApiDocument,
  schema: JsonSchema,
  options: SchemaArbitraryOptions,
): fc.Arbitrary<unknown> {
  const { string: hostileString, literal: hostileLiteral } = hostileValues(options.parameter ?? false);
  // A node's arbitrary is built once per depth: hostile values wrap the valid ones, and building both afresh at
  // every level doubled the work per level of a recursive schema (seconds for one deep request body).
  const validArbitrary = memoizedByNodeAndDepth((node, depth) => buildValid(node, depth));
  const build = memoizedByNodeAndDepth((node, depth) => {
    const valid = validArbitrary(node, depth);
    if (!options.hostile) return valid;
    // Cross-shrinking lets a hostile value that the failure does not need shrink back into a valid one.
    return fc.oneof(
      SHRINK_TO_FIRST,
      { weight: HOSTILE_ODDS, arbitrary: valid },
      { weight: 1, arbitrary: hostileArbitrary(node, depth) },
    );
  });

  const buildValid = (node: JsonSchema, depth: number): fc.Arbitrary<unknown> => {
    if (depth > REQUIRED_DEPTH_LIMIT)
      throw new Error(
        `A schema requires values deeper than ${REQUIRED_DEPTH_LIMIT} levels: ${JSON.stringify(node).slice(0, 200)}`,
      );
    const resolved = resolveSchema(document, node);
    if (resolved.allOf) return validArbitrary(mergeAllOf(document, resolved), depth);
    if (resolved.const !== undefined) return fc.constant(resolved.const);
    if (resolved.enum) return fc.constantFrom(...resolved.enum);
    const variants = resolved.anyOf ?? resolved.oneOf;
    if (variants) return fc.oneof(...variants.map((variant) => build(variant, depth + 1)));
    const types = typesOf(resolved);
    if (types.length > 1) {
      return fc.oneof(
        ...types.map((type) => ({
          weight: type === 'null' ? 1 : 4,
          arbitrary: validArbitrary({ ...resolved, type }, depth),
        })),
      );
    }
    switch (types[0]) {
      case 'string':
        return stringArbitrary(resolved, options.destinations ?? []);
      case 'integer':
        return integerArbitrary(resolved);
      case 'number':
        return numberArbitrary(resolved);
      case 'boolean':
        return fc.boolean();
      case 'null':
        return fc.constant(null);
      case 'array':
        return arrayArbitrary(resolved, depth);
      case 'object':
        return objectArbitrary(resolved, depth);
      default:
        return anyJson(depth);
    }
  };

  const arrayArbitrary = (schema: JsonSchema, depth: number) => {
    const minLength = schema.minItems ?? 0;
    if (depth >= MAX_DEPTH && minLength === 0) return fc.constant([]);
    const maxLength = Math.min(schema.maxItems ?? Number.MAX_SAFE_INTEGER, minLength + (depth >= MAX_DEPTH ? 0 : 3));
    return fc.array(schema.items ? build(schema.items, depth + 1) : anyJson(depth + 1), { minLength, maxLength });
  };

  const objectArbitrary = (schema: JsonSchema, depth: number) => {
    const properties = schema.properties ?? {};
    const required = (schema.required ?? []).filter((name) => Object.hasOwn(properties, name));
    const names = Object.keys(properties).filter((name) => depth < MAX_DEPTH || required.includes(name));
    const declared = fc.record(Object.fromEntries(names.map((name) => [name, build(properties[name]!, depth + 1)])), {
      requiredKeys: required,
      noNullPrototype: true,
    });
    const additional = schema.additionalProperties;
    if (additional === false || additional === undefined || depth >= MAX_DEPTH) return declared;
    const extraValue = additional === true ? anyJson(depth + 1) : build(additional, depth + 1);
    const extras = fc.dictionary(propertyName, extraValue, {
      maxKeys: names.length > 0 ? 2 : 4,
      noNullPrototype: true,
    });
    return fc.tuple(extras, declared).map(([extra, own]) => ({ ...extra, ...own }));
  };

  const hostileArbitrary = (node: JsonSchema, depth: number): fc.Arbitrary<unknown> => {
    const resolved = resolveSchema(document, node);
    const types = typesOf(resolved);
    const valid = validArbitrary(node, depth);
    const choices: Array<fc.Arbitrary<unknown>> = [hostileLiteral];
    if (types.includes('string')) {
      choices.push(
        fc
          .tuple(valid, hostileString, fc.nat())
          .map(([value, inserted, at]) => (typeof value === 'string' ? spliced(value, inserted, at) : inserted)),
        ...(resolved.format === 'date-time' ? [fc.constantFrom(...HOSTILE.timestamps)] : []),
        ...(resolved.maxLength !== undefined ? [fc.constant('a'.repeat(resolved.maxLength + 1))] : []),
      );
    }
    if (types.includes('number') || types.includes('integer')) {
      const bounds = [resolved.maximum, resolved.exclusiveMaximum]
        .filter((n) => n !== undefined)
        .map((n) => n + (types.includes('integer') ? 1 : 1e-9));
      bounds.push(
        ...[resolved.minimum, resolved.exclusiveMinimum]
          .filter((n) => n !== undefined)
          .map((n) => n - (types.includes('integer') ? 1 : 1e-9)),
      );
      choices.push(
        fc.constantFrom<unknown>(
          ...HOSTILE.numbers,
          '1',
          ...bounds,
          ...(resolved.exclusiveMinimum !== undefined ? [resolved.exclusiveMinimum] : []),
        ),
      );
    }
    if (types.includes('object')) {
      const required = resolved.required ?? [];
      if (required.length > 0) {
        choices.push(
          fc.tuple(valid, fc.nat()).map(([value, index]) => withoutKey(value, required[index % required.length]!)),
        );
      }
      choices.push(
        fc
          .tuple(valid, fc.constantFrom(...HOSTILE.keys), hostileLiteral)
          .map(([value, key, extra]) => withKey(value, key, extra)),
      );
    }
    // A parameter given twice (?a=1&a=2) reaches the server as an array.
    if (options.parameter) choices.push(fc.tuple(valid, valid));
    if (types.includes('array') && resolved.maxItems !== undefined && resolved.maxItems < 1_000) {
      const count = resolved.maxItems + 1;
      choices.push(
        fc.array(resolved.items ? validArbitrary(resolved.items, depth + 1) : fc.constant(0), {
          minLength: count,
          maxLength: count,
        }),
      );
    }
    return fc.oneof(...choices);
  };

  return build(schema, 0);
}

function memoizedByNodeAndDepth(
  make: (node: JsonSchema, depth: number) => fc.Arbitrary<unknown>,
): (node: JsonSchema, depth: number) => fc.Arbitrary<unknown> {
  const made = new Map<JsonSchema, Map<number, fc.Arbitrary<unknown>>>();
  return (node, depth) => {
    const byDepth = made.get(node) ?? new Map<number, fc.Arbitrary<unknown>>();
    made.set(node, byDepth);
    let arbitrary = byDepth.get(depth);
    if (!arbitrary) {
      arbitrary = make(node, depth);
      byDepth.set(depth, arbitrary);
    }
    return arbitrary;
  };
}

function typesOf(schema: JsonSchema): string[] {
  if (Array.isArray(schema.type)) return schema.type;
  if (schema.type) return [schema.type];
  if (schema.properties) return ['object'];
  if (schema.items) return ['array'];
  return [];
}

/**
 * allOf read as its authors meant it: one object with the properties and required names of all parts, closed
 * if any part is closed. (Where a part is closed to the others' properties, the document admits nothing; the
 * request check says so.)
 */
function mergeAllOf(document: OpenApiDocument, outer: JsonSchema): JsonSchema {
  const parts = (outer.allOf ?? []).map((part) => {
    const resolved = resolveSchema(document, part);
    return resolved.allOf ? mergeAllOf(document, resolved) : resolved;
  });
  const merged: JsonSchema = { ...outer };
  delete merged.allOf;
  for (const part of parts) {
    Object.assign(merged, {
      ...part,
      properties: { ...merged.properties, ...part.properties },
      required: [...(merged.required ?? []), ...(part.required ?? [])],
    });
  }
  if (parts.some((part) => part.additionalProperties === false)) merged.additionalProperties = false;
  return merged;
}

function stringArbitrary(schema: JsonSchema, destinations: readonly string[]): fc.Arbitrary<string> {
  const minLength = schema.minLength ?? 0;
  const maxLength = schema.maxLength ?? 10_000;
  const fits = (value: string) => value.length >= minLength && value.length <= maxLength;
  if (schema.format === 'uri' && destinations.length > 0) {
    return fc
      .oneof(
        FORMAT_ARBITRARIES.uri!,
        fc.tuple(fc.constantFrom(...destinations), urlPath).map(([origin, path]) => `${origin}${path}`),
      )
      .filter(fits);
  }
  if (schema.format) {
    const arbitrary = FORMAT_ARBITRARIES[schema.format];
    if (!arbitrary)
      throw new Error(`No generator for format "${schema.format}": add it to FORMAT_ARBITRARIES and FORMATS`);
    return arbitrary.filter(fits);
  }
  if (schema.pattern) return matching(schema.pattern).filter(fits);
  return plainString(minLength, maxLength);
}

function integerArbitrary(schema: JsonSchema): fc.Arbitrary<number> {
  const min = Math.max(
    Number.MIN_SAFE_INTEGER,
    Math.ceil(
      schema.exclusiveMinimum !== undefined
        ? schema.exclusiveMinimum + 1e-9
        : (schema.minimum ?? Number.MIN_SAFE_INTEGER),
    ),
  );
  const max = Math.min(
    Number.MAX_SAFE_INTEGER,
    Math.floor(
      schema.exclusiveMaximum !== undefined
        ? schema.exclusiveMaximum - 1e-9
        : (schema.maximum ?? Number.MAX_SAFE_INTEGER),
    ),
  );
  if (schema.multipleOf) {
    const step = schema.multipleOf;
    return fc.integer({ min: Math.ceil(min / step), max: Math.floor(max / step) }).map((k) => k * step);
  }
  return fc.integer({ min, max });
}

/** Doubles from the whole range (subnormals and extremes included), and plain decimals as people write them. */
function numberArbitrary(schema: JsonSchema): fc.Arbitrary<number> {
  const low = schema.exclusiveMinimum ?? schema.minimum ?? -1_000_000;
  const high = schema.exclusiveMaximum ?? schema.maximum ?? 1_000_000;
  const admits = (value: number) =>
    (schema.minimum === undefined || value >= schema.minimum) &&
    (schema.maximum === undefined || value <= schema.maximum) &&
    (schema.exclusiveMinimum === undefined || value > schema.exclusiveMinimum) &&
    (schema.exclusiveMaximum === undefined || value < schema.exclusiveMaximum);
  const [min, max] = [Math.ceil(Math.max(low, -1e9) * 100), Math.floor(Math.min(high, 1e9) * 100)];
  if (min > max) return anyDouble(schema);
  return fc.oneof(
    fc
      .integer({ min, max })
      .map((hundredths) => hundredths / 100)
      .filter(admits),
    anyDouble(schema),
  );
}

function anyDouble(schema: JsonSchema): fc.Arbitrary<number> {
  return fc
    .double({
      noNaN: true,
      noDefaultInfinity: true,
      ...(schema.minimum !== undefined ? { min: schema.minimum } : {}),
      ...(schema.maximum !== undefined ? { max: schema.maximum } : {}),
      ...(schema.exclusiveMinimum !== undefined ? { min: schema.exclusiveMinimum, minExcluded: true } : {}),
      ...(schema.exclusiveMaximum !== undefined ? { max: schema.exclusiveMaximum, maxExcluded: true } : {}),
    })
    .map((value) => (Object.is(value, -0) ? 0 : value));
}

/** Any JSON value, for schemas that say nothing of their shape. */
function anyJson(depth: number): fc.Arbitrary<unknown> {
  return once(`json ${depth >= MAX_DEPTH ? 'leaf' : 'nested'}`, () => anyJsonOf(depth));
}

function anyJsonOf(depth: number): fc.Arbitrary<unknown> {
  const leaf = fc.oneof(
    plainString(0, 20),
    fc.integer(),
    fc.double({ noNaN: true, noDefaultInfinity: true }).map((n) => (Object.is(n, -0) ? 0 : n)),
    fc.boolean(),
    fc.constant(null),
  );
  if (depth >= MAX_DEPTH) return leaf;
  return fc.oneof(
    { weight: 4, arbitrary: leaf },
    { weight: 1, arbitrary: fc.array(leaf, { maxLength: 3 }) },
    {
      weight: 1,
      arbitrary: fc.dictionary(propertyName, leaf, {
        maxKeys: 3,
        noNullPrototype: true,
      }),
    },
  );
}

function spliced(value: string, inserted: string, at: number): string {
  const position = value.length === 0 ? 0 : at % (value.length + 1);
  return value.slice(0, position) + inserted + value.slice(position);
}

function withoutKey(value: unknown, key: string): unknown {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return value;
  return Object.fromEntries(Object.entries(value).filter(([name]) => name !== key));
}

/** Adds a key as an own property, even __proto__, the way JSON.parse on the server will see it. */
function withKey(value: unknown, key: string, extra: unknown): unknown {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return value;
  const copy: Record<string, unknown> = { ...value };
  Object.defineProperty(copy, key, { value: extra, enumerable: true, writable: true, configurable: true });
  return copy;
}

import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { jsonText, schemaArbitrary, SHRINK_TO_FIRST, shownJson, shownText } from './openapi-arbitraries';
import {
  operationsOf,
  resolveSchema,
  type JsonSchema,
  type OpenApiDocument,
  type Operation,
  type Parameter,
} from './openapi-document';

/** Who the request claims to be: public operations ignore it. */
export type AuthChoice = 'every-scope' | 'no-token' | 'no-scopes' | 'wrong-scope' | 'malformed-token';

/** Text put into the URL exactly as written, such as malformed percent-encoding. */
export class RawParam {
  constructor(readonly text: string) {}

  [fc.toStringMethod](): string {
    return `raw(${JSON.stringify(this.text)})`;
  }
}

/** An id the server handed out earlier (the index-th one kept under that name), or the fallback while none is known. */
export class Harvested {
  constructor(
    readonly name: string,
    readonly index: number,
    readonly fallback: unknown,
  ) {}

  [fc.toStringMethod](): string {
    return `harvested(${this.name} #${this.index}, else ${shownJson(this.fallback)})`;
  }
}

/**
 * An Idempotency-Key made when the request is sent: a new one (a key is meant to be used once, and a generated
 * string would repeat across runs and shrinks), or the one the previous request of the operation used.
 */
export class IdempotencyKey {
  constructor(readonly reuse: boolean) {}

  [fc.toStringMethod](): string {
    return this.reuse ? 'the previous request’s key' : 'a new key';
  }
}

export type BodyPlan =
  { kind: 'none' } | { kind: 'json'; value: unknown } | { kind: 'text'; text: string; contentType: string | undefined };

/** What one generated request is, before tokens, harvested ids and keys are filled in. */
export interface RequestPlan {
  operation: string;
  /** valid: every part was generated within the document's schemas; hostile: anything goes. */
  intent: 'valid' | 'hostile';
  auth: AuthChoice | 'public';
  /** Sent where the caller's rate limits are spent. */
  overRateLimit: boolean;
  path: Record<string, unknown>;
  query: Record<string, unknown>;
  headers: Record<string, unknown>;
  body: BodyPlan;
}

export interface RequestOptions {
  /** Names of the resources the document's paths name (agent_id, routing_id …), as harvestName spells them. */
  resourceNames: ReadonlySet<string>;
  /** Origins that URIs in bodies use as often as names that never resolve (see schemaArbitrary). */
  destinations?: readonly string[];
}

const WRONG_CONTENT_TYPES = [
  undefined,
  'text/plain',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=x',
  'application/xml',
  'application/json; charset=utf-16',
  'application/json; charset=latin1',
  'application/merge-patch+json',
  'application/octet-stream',
  'json',
];
const MALFORMED_JSON = [
  '{',
  '{"a":1',
  '{"a":1,}',
  "{'a':1}",
  '{"a":1}garbage',
  '{a:1}',
  'NaN',
  'undefined',
  '\ufeff{}',
  '{"a":1 /* c */}',
  '[1,2',
  '"\\x"',
  '"\\ud800"',
  '{"a":"\u0000"}',
  '\u0000',
];
const NOT_AN_OBJECT = ['null', '[]', '"string"', '0', 'true', '1e999', '-1e999', '{}', '[{}]', ''];
const MALFORMED_PATH_SEGMENTS = ['%', '%zz', '%E0%A4', '%C0%AF', '%00', '..', '%2F'].map((text) => new RawParam(text));
const DEEP_BODIES = [1_000, 10_000].flatMap((depth) => [
  `${'['.repeat(depth)}${']'.repeat(depth)}`,
  `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`,
]);

/** The name ids are kept under: X-Agent-ID and {agent_id} meet as agent_id. */
export function harvestName(name: string): string {
  return name.toLowerCase().replace(/^x-/, '').replaceAll('-', '_');
}

export function resourceNamesOf(operations: Operation[]): Set<string> {
  return new Set(
    operations.flatMap((operation) =>
      operation.parameters
        .filter((parameter) => parameter.in === 'path')
        .map((parameter) => harvestName(parameter.name)),
    ),
  );
}

/**
 * Requests for one operation, derived from its parameters and body schema: mostly valid, with hostile values
 * mixed in (inside values, in the body as a whole, in the credentials). Shrinking leads back towards valid.
 */
export function requestArbitrary(
  document: OpenApiDocument,
  operation: Operation,
  options: RequestOptions,
): fc.Arbitrary<RequestPlan> {
  return fc
    .oneof(
      SHRINK_TO_FIRST,
      { weight: 3, arbitrary: planArbitrary(document, operation, options, 'valid') },
      { weight: 2, arbitrary: planArbitrary(document, operation, options, 'hostile') },
    )
    .map((plan) => Object.assign(plan, { [fc.toStringMethod]: () => shownPlan(plan) }));
}

function planArbitrary(
  document: OpenApiDocument,
  operation: Operation,
  options: RequestOptions,
  intent: RequestPlan['intent'],
): fc.Arbitrary<RequestPlan> {
  const hostile = intent === 'hostile';
  // Form style has no way to say null, so a parameter's null is left to the hostile values.
  const generated = (parameter: Parameter) =>
    schemaArbitrary(document, withoutNull(parameter.schema), { hostile, parameter: true });
  const ofKind = (kind: Parameter['in']) => operation.parameters.filter((parameter) => parameter.in === kind);
  const harvestedOr = (parameter: Parameter, arbitrary: fc.Arbitrary<unknown>) =>
    options.resourceNames.has(harvestName(parameter.name))
      ? fc.oneof(
          SHRINK_TO_FIRST,
          arbitrary,
          fc
            .tuple(fc.nat(), arbitrary)
            .map(([index, fallback]) => new Harvested(harvestName(parameter.name), index, fallback)),
        )
      : arbitrary;

  const path = record(
    ofKind('path').map((parameter) => {
      const value = harvestedOr(
        parameter,
        generated(parameter).filter((v) => paramText(v) !== ''),
      );
      return [
        parameter.name,
        hostile
          ? fc.oneof(SHRINK_TO_FIRST, { weight: 6, arbitrary: value }, fc.constantFrom(...MALFORMED_PATH_SEGMENTS))
          : value,
        true,
      ];
    }),
    hostile,
  );
  const query = record(
    ofKind('query').map((parameter) => [parameter.name, generated(parameter), parameter.required ?? false]),
    hostile,
  );
  const headers = record(
    ofKind('header').map((parameter) => [
      parameter.name,
      parameter.name.toLowerCase() === 'idempotency-key'
        ? idempotencyKey(generated(parameter), hostile)
        : harvestedOr(parameter, generated(parameter)),
      parameter.required ?? false,
    ]),
    hostile,
  );
  const unknownQuery = hostile
    ? fc.dictionary(fc.constantFrom('unknown', 'limit[]', '__proto__', 'a\u0000'), fc.constantFrom('1', '', '\u0000'), {
        maxKeys: 1,
        noNullPrototype: true,
      })
    : fc.constant({});

  return fc.record({
    operation: fc.constant(operation.label),
    intent: fc.constant(intent),
    auth: authArbitrary(operation, hostile),
    overRateLimit: hostile
      ? fc.oneof(SHRINK_TO_FIRST, { weight: 5, arbitrary: fc.constant(false) }, fc.constant(true))
      : fc.constant(false),
    path,
    query: fc.tuple(unknownQuery, query).map(([unknown, own]) => ({ ...unknown, ...own })),
    headers,
    body: bodyArbitrary(document, operation, options, hostile),
  });
}

/** Required entries always; optional ones a third of the time (half, when hostile), so that a request seldom carries every filter at once. */
function record(
  entries: Array<[string, fc.Arbitrary<unknown>, boolean]>,
  hostile: boolean,
): fc.Arbitrary<Record<string, unknown>> {
  const absent = { weight: hostile ? 1 : 2, arbitrary: fc.constant(undefined) };
  return fc
    .tuple(
      ...entries.map(([name, arbitrary, required]) =>
        (required ? arbitrary : fc.oneof(SHRINK_TO_FIRST, absent, arbitrary)).map((value) => [name, value] as const),
      ),
    )
    .map((pairs) => Object.fromEntries(pairs.filter(([, value]) => value !== undefined)));
}

function withoutNull(schema: JsonSchema): JsonSchema {
  return Array.isArray(schema.type) ? { ...schema, type: schema.type.filter((type) => type !== 'null') } : schema;
}

function idempotencyKey(generated: fc.Arbitrary<unknown>, hostile: boolean): fc.Arbitrary<unknown> {
  const fresh = fc.constant(new IdempotencyKey(false));
  if (!hostile) return fresh;
  return fc.oneof(SHRINK_TO_FIRST, { weight: 4, arbitrary: fresh }, fc.constant(new IdempotencyKey(true)), generated);
}

function authArbitrary(operation: Operation, hostile: boolean): fc.Arbitrary<RequestPlan['auth']> {
  if (!operation.scope) return fc.constant('public');
  if (!hostile) return fc.constant('every-scope');
  return fc.oneof(
    SHRINK_TO_FIRST,
    { weight: 6, arbitrary: fc.constant('every-scope' as const) },
    {
      weight: 1,
      arbitrary: fc.constantFrom(
        'no-token' as const,
        'no-scopes' as const,
        'wrong-scope' as const,
        'malformed-token' as const,
      ),
    },
  );
}

function bodyArbitrary(
  document: OpenApiDocument,
  operation: Operation,
  options: RequestOptions,
  hostile: boolean,
): fc.Arbitrary<BodyPlan> {
  const none = fc.constant<BodyPlan>({ kind: 'none' });
  const text = (
    texts: fc.Arbitrary<string>,
    contentType: fc.Arbitrary<string | undefined> = fc.constant('application/json'),
  ) => fc.tuple(texts, contentType).map(([body, type]): BodyPlan => ({ kind: 'text', text: body, contentType: type }));
  const wholeBodyHostility = [
    text(fc.constantFrom(...MALFORMED_JSON)),
    text(fc.constantFrom(...NOT_AN_OBJECT)),
    text(fc.constantFrom(...DEEP_BODIES)),
  ];
  if (!operation.body) {
    if (operation.method === 'GET' || !hostile) return none;
    return fc.oneof(SHRINK_TO_FIRST, { weight: 6, arbitrary: none }, ...wholeBodyHostility);
  }
  const values = (asHostile: boolean) =>
    schemaArbitrary(document, operation.body!.schema, { hostile: asHostile, destinations: options.destinations ?? [] });
  const json = values(hostile).map((value): BodyPlan => ({ kind: 'json', value }));
  if (!hostile) return operation.body.required ? json : fc.oneof({ weight: 4, arbitrary: json }, none);
  return fc.oneof(
    SHRINK_TO_FIRST,
    { weight: 12, arbitrary: json },
    none,
    text(values(false).map(jsonText), fc.constantFrom(...WRONG_CONTENT_TYPES)),
    ...wholeBodyHostility,
  );
}

/** A parameter's value as text: strings as they are, JSON for anything else. */
export function paramText(value: unknown): string {
  if (value instanceof RawParam) return value.text;
  if (typeof value === 'string') return value;
  if (value === null) return '';
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return jsonText(value);
}

/**
 * Ids found in earlier answers, by field name, so that requests for one resource can name one that exists;
 * and the last Idempotency-Key sent, for a request that reuses it.
 */
export class HarvestPool {
  private readonly values = new Map<string, string[]>();
  private lastKey: string | undefined;

  constructor(private readonly names: ReadonlySet<string>) {}

  harvest(value: unknown, depth = 0): void {
    if (depth > 6 || value === null || typeof value !== 'object') return;
    for (const [key, field] of Object.entries(value).slice(0, 200)) {
      if (typeof field === 'string' && this.names.has(key)) this.keep(key, field);
      else this.harvest(field, depth + 1);
    }
  }

  /** A harvested value as the pool has it now, a key for an IdempotencyKey; anything else as it is. */
  resolve(value: unknown): unknown {
    if (value instanceof Harvested) {
      const known = this.values.get(value.name);
      return known && known.length > 0 ? known[value.index % known.length] : value.fallback;
    }
    if (value instanceof IdempotencyKey) {
      if (!value.reuse || !this.lastKey) this.lastKey = `fuzz-${randomUUID()}`;
      return this.lastKey;
    }
    return value;
  }

  private keep(name: string, value: string): void {
    const values = this.values.get(name) ?? [];
    if (values.includes(value)) return;
    values.push(value);
    if (values.length > 32) values.shift();
    this.values.set(name, values);
  }
}

/**
 * Operations in an order where those that hand out ids come before those that name them: an operation whose
 * path (or a header like X-Agent-ID) names a resource runs once some earlier operation's 2xx answer can carry
 * that name. Deletions go last, so that what they remove serves the others first. Otherwise the document's order.
 */
export function dependencyOrder(
  document: OpenApiDocument,
  operations: Operation[] = operationsOf(document),
): Operation[] {
  const resourceNames = resourceNamesOf(operationsOf(document));
  const consumes = (operation: Operation) =>
    operation.parameters.map((parameter) => harvestName(parameter.name)).filter((name) => resourceNames.has(name));
  const produces = new Map(operations.map((operation) => [operation, fieldNames(document, operation)]));
  const producible = new Set([...produces.values()].flatMap((names) => [...names]));
  const available = new Set<string>();
  const ordered: Operation[] = [];
  let remaining = operations;
  while (remaining.length > 0) {
    const ready = remaining.filter((operation) =>
      consumes(operation).every((name) => available.has(name) || !producible.has(name)),
    );
    const next = ready.length > 0 ? ready : remaining.slice(0, 1);
    for (const operation of next) for (const name of produces.get(operation)!) available.add(name);
    ordered.push(...next);
    remaining = remaining.filter((operation) => !next.includes(operation));
  }
  return [
    ...ordered.filter((operation) => operation.method !== 'DELETE'),
    ...ordered.filter((operation) => operation.method === 'DELETE'),
  ];
}

/** The property names an operation's 2xx answers may carry. */
function fieldNames(document: OpenApiDocument, operation: Operation): Set<string> {
  const names = new Set<string>();
  const seen = new Set<JsonSchema>();
  const walk = (node: JsonSchema | undefined) => {
    if (!node) return;
    const schema = resolveSchema(document, node);
    if (seen.has(schema)) return;
    seen.add(schema);
    for (const [name, property] of Object.entries(schema.properties ?? {})) {
      names.add(name);
      walk(property);
    }
    [...(schema.allOf ?? []), ...(schema.anyOf ?? []), ...(schema.oneOf ?? []), schema.items].forEach(walk);
  };
  for (const [status, response] of Object.entries(operation.responses)) {
    if (status.startsWith('2')) for (const media of Object.values(response.content ?? {})) walk(media.schema);
  }
  return names;
}

function shownValue(value: unknown): string {
  return value instanceof Harvested || value instanceof RawParam || value instanceof IdempotencyKey
    ? fc.stringify(value)
    : shownJson(value);
}

function shownPlan(plan: RequestPlan): string {
  const lines = [
    `${plan.operation} [${plan.intent}, auth: ${plan.auth}${plan.overRateLimit ? ', over the rate limit' : ''}]`,
  ];
  for (const [where, values] of [
    ['path', plan.path],
    ['query', plan.query],
    ['header', plan.headers],
  ] as const) {
    for (const [name, value] of Object.entries(values)) lines.push(`  ${where} ${name} = ${shownValue(value)}`);
  }
  if (plan.body.kind === 'json') lines.push(`  body (application/json) ${shownJson(plan.body.value)}`);
  if (plan.body.kind === 'text')
    lines.push(`  raw body (${plan.body.contentType ?? 'no content type'}) ${shownText(plan.body.text)}`);
  return lines.join('\n');
}

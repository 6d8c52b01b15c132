import type { AddressInfo } from 'node:net';
import type { RequestHandler } from 'express';
import { openApiDocument } from '../../api/docs';
import { PrefixRouter } from '../../api/prefix-router';
import { ApiBuilder } from '../../api/route';
import { z } from '../../api/schemas/zod';
import { buildStackApp } from '../support/app';
import { call } from '../support/http';
import { validateOpenApi } from '../support/openapi';
import { useStack } from '../support/stack';

/* eslint-disable @typescript-eslint/no-explicit-any -- the document is read as the JSON a client gets */
type Json = any;

let doc: Json;

const stack = useStack();
beforeAll(async () => {
  const reply = await call(stack.baseUrl, 'GET', '/openapi.json');
  expect(reply.status).toBe(200);
  doc = reply.body;
});

const METHODS = ['get', 'put', 'post', 'patch', 'delete'];
const RATE_LIMIT_HEADERS = ['X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset', 'X-RateLimit-Resource'];

function operations(): Array<{ name: string; method: string; path: string; op: Json }> {
  return Object.entries(doc.paths as Record<string, Record<string, Json>>).flatMap(([path, item]) =>
    Object.entries(item)
      .filter(([method]) => METHODS.includes(method))
      .map(([method, op]) => ({ name: `${method.toUpperCase()} ${path}`, method, path, op })),
  );
}

/** Follows a local $ref (#/components/...) to what it names. */
function resolve(node: Json): Json {
  if (!node?.$ref) return node;
  return resolve(
    (node.$ref as string)
      .slice(2)
      .split('/')
      .reduce((at: Json, key) => at?.[key], doc),
  );
}

const headerNames = (response: Json): string[] => Object.keys(resolve(response)?.headers ?? {});
const idempotencyKeyParameter = (op: Json): Json =>
  (op.parameters ?? []).map(resolve).find((p: Json) => p.in === 'header' && p.name === 'idempotency-key');

describe('the OpenAPI document', () => {
  it('is a valid OpenAPI 3.1 document', async () => {
    expect(doc.openapi).toBe('3.1.0');
    await expect(validateOpenApi(doc)).resolves.toBeUndefined();
    await expect(
      validateOpenApi({ ...doc, paths: { '/broken': { get: { responses: { 200: {} } } } } }),
    ).rejects.toThrow(/description/);
  });

  it('documents every route the app serves, and only those', async () => {
    // Only its routes are read: nothing of its deps has started, and they are ended at once.
    const { app, close } = buildStackApp(stack);
    await close();
    const served = new Set<string>();
    const walk = (layers: Json[]) => {
      for (const layer of layers) {
        if (layer.route)
          for (const method of Object.keys(layer.route.methods))
            served.add(`${method.toUpperCase()} ${layer.route.path as string}`);
        else if (layer.handle?.stack) walk(layer.handle.stack);
      }
    };
    walk((app as Json).router.stack);
    const documented = operations().map(
      ({ method, path }) => `${method.toUpperCase()} ${path.replace(/\{(\w+)\}/g, ':$1')}`,
    );
    expect([...served].sort()).toEqual([...new Set(documented)].sort());
  });

  it('documents the platform and the orchestration agent registrations each with its own body', () => {
    const body = (path: string) => resolve(doc.paths[path].post.requestBody.content['application/json'].schema);
    expect(Object.keys(body('/v1/agents').properties)).toEqual(
      expect.arrayContaining(['agent_uri', 'endpoint_url', 'capabilities']),
    );
    expect(Object.keys(body('/v1/orch/agents/register').properties)).toEqual(
      expect.arrayContaining(['agent_name', 'agent_type', 'safety_constraints']),
    );
  });

  it('has no allOf that a closed member makes unsatisfiable', () => {
    const found: string[] = [];
    const visit = (node: Json, where: string) => {
      if (!node || typeof node !== 'object') return;
      if (Array.isArray(node.allOf)) {
        const members = (node.allOf as Json[]).map(resolve);
        members.forEach((closed, index) => {
          if (closed.additionalProperties !== false) return;
          const allowed = Object.keys(closed.properties ?? {});
          for (const other of members.filter((_, at) => at !== index)) {
            for (const name of new Set<string>([...Object.keys(other.properties ?? {}), ...(other.required ?? [])])) {
              if (!allowed.includes(name)) found.push(`${where}: member ${index} forbids ${name}`);
            }
          }
        });
      }
      for (const [key, value] of Object.entries(node)) visit(value, `${where}/${key}`);
    };
    visit(doc, '#');
    expect(found).toEqual([]);
    const dryRun = resolve(
      doc.paths['/v1/orch/escalation/rules/dry-run'].post.requestBody.content['application/json'].schema,
    );
    expect(Object.keys(dryRun.properties)).toEqual(expect.arrayContaining(['conditions', 'actions', 'priority']));
  });

  it('documents both idempotency conflicts, with Retry-After, on every operation that takes Idempotency-Key', () => {
    // It derives the subscription from the key itself, without storing a response (which holds the secret): nothing is ever in flight.
    const OWN_KEY_HANDLING = ['POST /v1/orch/webhooks'];
    const keyed = operations().filter(({ op }) => idempotencyKeyParameter(op));
    const missing = keyed.flatMap(({ name, op }) => {
      const conflict = resolve(op.responses['409']);
      const inFlight = !OWN_KEY_HANDLING.includes(name);
      return [
        ...(conflict?.content?.['application/problem+json'] ? [] : [`${name}: no problem body`]),
        ...(/idempotency_key_reused/.test(conflict?.description) ? [] : [`${name}: idempotency_key_reused`]),
        ...(!inFlight || /idempotency_request_in_flight/.test(conflict?.description)
          ? []
          : [`${name}: idempotency_request_in_flight`]),
        ...(!inFlight || headerNames(conflict).includes('Retry-After') ? [] : [`${name}: Retry-After`]),
      ];
    });
    expect(keyed.length).toBeGreaterThan(30);
    expect(missing).toEqual([]);
  });

  it('documents the Idempotency-Key format that the server enforces', async () => {
    const schemas = operations()
      .map(({ op }) => idempotencyKeyParameter(op))
      .filter(Boolean)
      .map((parameter) => resolve(parameter.schema));
    const { pattern, maxLength, minLength } = schemas[0];
    expect(typeof pattern).toBe('string');
    expect(maxLength).toBe(255);
    for (const schema of schemas)
      expect({ pattern: schema.pattern, maxLength: schema.maxLength, minLength: schema.minLength }).toEqual({
        pattern,
        maxLength,
        minLength,
      });

    const token = await stack.token(['orch:admin']);
    const documentedAccepts = (key: string) =>
      key.length >= (minLength ?? 0) && key.length <= maxLength && new RegExp(pattern, 'u').test(key);
    for (const key of ['k'.repeat(255), 'k'.repeat(256), 'two words', '~visible!ASCII#key', 'tab\tkey']) {
      const reply = await call(stack.baseUrl, 'PUT', '/v1/orch/reviewers/did:web:example.com:reviewers:keys', {
        token,
        json: { display_name: 'Keys' },
        headers: { 'idempotency-key': key },
      });
      const serverAccepts = !(
        reply.status === 400 && reply.body.errors?.some((error: Json) => error.field === 'Idempotency-Key')
      );
      expect({ key, accepted: serverAccepts }).toEqual({ key, accepted: documentedAccepts(key) });
    }
  });

  it('documents 413 and 415 on every operation with a body', () => {
    const missing = operations()
      .filter(({ op }) => op.requestBody)
      .flatMap(({ name, op }) =>
        ['413', '415']
          .filter((status) => !resolve(op.responses[status])?.content?.['application/problem+json'])
          .map((status) => `${name} ${status}`),
      );
    expect(missing).toEqual([]);
  });

  it('documents 429 with Retry-After, and X-RateLimit-* on every response, of every rate-limited operation', () => {
    const missing = operations()
      .filter(({ op }) => op['x-rate-limit-category'])
      .flatMap(({ name, op }) => [
        ...(headerNames(op.responses['429']).includes('Retry-After') ? [] : [`${name} 429 Retry-After`]),
        ...Object.entries(op.responses as Record<string, Json>).flatMap(([status, response]) =>
          RATE_LIMIT_HEADERS.filter((header) => !headerNames(response).includes(header)).map(
            (header) => `${name} ${status} ${header}`,
          ),
        ),
      ]);
    expect(missing).toEqual([]);
  });

  it('documents an error body for every error response', () => {
    const missing = operations().flatMap(({ name, op }) =>
      Object.entries(op.responses as Record<string, Json>)
        .filter(([status, response]) => Number(status) >= 400 && !resolve(response).content)
        .map(([status]) => `${name} ${status}`),
    );
    expect(missing).toEqual([]);
  });

  it('documents the HTML reply of a compliance report beside its JSON', () => {
    const content = doc.paths['/v1/orch/compliance/reports/{report_id}'].get.responses['200'].content;
    expect(Object.keys(content).sort()).toEqual(['application/json', 'text/html']);
    expect(content['text/html'].schema).toMatchObject({ type: 'string' });
  });

  it('describes the problem body of the platform spec', () => {
    const problem = doc.components.schemas.Problem;
    expect(problem.required).toEqual(
      expect.arrayContaining(['type', 'title', 'status', 'instance', 'request_id', 'remediation']),
    );
    expect(problem.properties.incident_id).toMatchObject({ type: 'string' });
    const step = resolve(problem.properties.remediation.items);
    expect(step).toMatchObject({ properties: { step: { type: 'integer' }, description: { type: 'string' } } });
    const fieldError = resolve(problem.properties.errors.items);
    expect(Object.keys(fieldError.properties).sort()).toEqual(['code', 'expected', 'field', 'message', 'received']);
  });
});

describe('generating the document', () => {
  const pass: RequestHandler = (_req, _res, next) => next();
  const builder = () => new ApiBuilder({ authenticate: pass, rateLimit: () => pass, idempotency: pass });
  const operation = (path: string, body: z.ZodType, reply: z.ZodType) => ({
    method: 'post' as const,
    path,
    operationId: path.slice(1),
    summary: path,
    tags: ['Test'],
    auth: 'public' as const,
    rateLimit: null,
    request: { body },
    responses: { 200: { description: 'ok', schema: reply } },
    handler: () => ({ status: 200 }),
  });

  it('accepts one schema used under its name in several places, described or optional', () => {
    const thing = z.object({ a: z.string() }).openapi('Thing');
    const api = builder();
    api.route(operation('/one', thing, thing.openapi({ description: 'The same thing, described' })));
    api.route(operation('/two', z.object({ thing: thing.optional(), things: z.array(thing) }), thing));
    expect(openApiDocument(api, 'http://127.0.0.1').components?.schemas?.Thing).toMatchObject({
      properties: { a: { type: 'string' } },
    });
  });

  it('refuses two different schemas under one name', () => {
    const api = builder();
    api.route(operation('/one', z.object({ a: z.string() }).openapi('Thing'), z.object({})));
    api.route(operation('/two', z.object({ b: z.number() }).openapi('Thing'), z.object({})));
    expect(() => openApiDocument(api, 'http://127.0.0.1')).toThrow(/Thing/);
  });

  it('refuses a nested schema that takes a name already given', () => {
    const api = builder();
    api.route(operation('/one', z.object({ a: z.string() }).openapi('Thing'), z.object({})));
    api.route(
      operation('/two', z.object({}), z.object({ nested: z.array(z.object({ a: z.number() }).openapi('Thing')) })),
    );
    expect(() => openApiDocument(api, 'http://127.0.0.1')).toThrow(/Thing/);
  });
});

describe('the app as buildApp assembles it', () => {
  it('has built its routers’ prefix trees, the documentation’s routes included, before its first request', async () => {
    const trees = jest.spyOn(PrefixRouter.prototype as unknown as { tree: (prefix: string[]) => unknown }, 'tree');
    const { app, close } = buildStackApp(stack);
    const server = app.listen(0);
    try {
      expect(trees).toHaveBeenCalled();
      trees.mockClear();
      const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      expect((await call(baseUrl, 'GET', '/docs/init.js')).status).toBe(200);
      expect(trees).not.toHaveBeenCalled();
    } finally {
      trees.mockRestore();
      await new Promise((resolve) => server.close(resolve));
      await close();
    }
  });
});

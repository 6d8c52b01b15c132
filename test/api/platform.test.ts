import { Client, Connection } from '@temporalio/client';
import knex from 'knex';
import { startExtraApp } from '../support/app';
import { call, expectProblem } from '../support/http';
import { useStack } from '../support/stack';

const ALLOWED_ORIGIN = 'https://app.example';

let token: string;

const stack = useStack({ CORS_ALLOWED_ORIGINS: ALLOWED_ORIGIN });
beforeAll(async () => {
  token = await stack.token(['orch:read']);
});

describe('X-Request-ID', () => {
  it('echoes a sane id the caller sends', async () => {
    const reply = await call(stack.baseUrl, 'GET', '/healthz', { headers: { 'x-request-id': 'trace-7f3a:b.c_d-e' } });
    expect(reply.headers.get('x-request-id')).toBe('trace-7f3a:b.c_d-e');
  });

  it.each([
    ['none', undefined],
    ['one with spaces', 'two words'],
    ['one longer than 128 characters', 'x'.repeat(129)],
    ['one with markup', '<script>'],
  ])('generates a fresh req_ id when the caller sends %s', async (_name, given) => {
    const headers: Record<string, string> = given === undefined ? {} : { 'x-request-id': given };
    const [first, second] = await Promise.all([
      call(stack.baseUrl, 'GET', '/healthz', { headers }),
      call(stack.baseUrl, 'GET', '/healthz', { headers }),
    ]);
    expect(first.headers.get('x-request-id')).toMatch(/^req_[0-9a-f-]{36}$/);
    expect(second.headers.get('x-request-id')).not.toBe(first.headers.get('x-request-id'));
  });

  it('puts the request id in problem bodies', async () => {
    const given = await call(stack.baseUrl, 'GET', '/v1/orch/reviewers', {
      headers: { 'x-request-id': 'trace-in-problem' },
    });
    expectProblem(given, 401, 'unauthorized');
    expect(given.body.request_id).toBe('trace-in-problem');

    const generated = await call(stack.baseUrl, 'GET', '/nowhere');
    expectProblem(generated, 404, 'not_found');
    expect(generated.body.request_id).toMatch(/^req_/);
  });
});

describe('health', () => {
  it('answers /healthz with 200 without auth', async () => {
    const reply = await call(stack.baseUrl, 'GET', '/healthz');
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual({ status: 'ok' });
  });

  it('answers /readyz with 200 when Postgres and Temporal answer', async () => {
    const reply = await call(stack.baseUrl, 'GET', '/readyz');
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual({
      status: 'ready',
      checks: [
        { name: 'postgres', ok: true },
        { name: 'temporal', ok: true },
      ],
    });
  });

  it('answers /readyz with 503 naming Postgres when it is unreachable', async () => {
    const quiet = { warn() {}, error() {}, debug() {}, deprecate() {} };
    const db = knex({
      client: 'pg',
      connection: 'postgres://postgres@127.0.0.1:1/x',
      pool: { min: 0, max: 1 },
      acquireConnectionTimeout: 5000,
      log: quiet,
    });
    const app = await startExtraApp(stack, { db });
    try {
      const reply = await call(app.baseUrl, 'GET', '/readyz');
      expect(reply.status).toBe(503);
      expect(reply.body).toEqual({
        status: 'unavailable',
        checks: [
          { name: 'postgres', ok: false, error: expect.any(String) },
          { name: 'temporal', ok: true },
        ],
      });
      expect((await call(app.baseUrl, 'GET', '/healthz')).status).toBe(200);
    } finally {
      await app.close();
      await db.destroy();
    }
  });

  it('answers /readyz with 503 naming Temporal when its connection is closed', async () => {
    const connection = await Connection.connect({ address: stack.config.TEMPORAL_ADDRESS });
    const app = await startExtraApp(stack, {
      temporal: new Client({ connection, namespace: stack.config.TEMPORAL_NAMESPACE }),
    });
    await connection.close();
    try {
      const reply = await call(app.baseUrl, 'GET', '/readyz');
      expect(reply.status).toBe(503);
      expect(reply.body.checks).toEqual([
        { name: 'postgres', ok: true },
        { name: 'temporal', ok: false, error: expect.any(String) },
      ]);
    } finally {
      await app.close();
    }
  });
});

describe('API documentation', () => {
  it('serves an OpenAPI 3.1 document with the routing operation, its schema and the Problem component', async () => {
    const reply = await call(stack.baseUrl, 'GET', '/openapi.json');
    expect(reply.status).toBe(200);
    const doc = reply.body;
    expect(doc.openapi).toBe('3.1.0');
    const operation = doc.paths['/v1/orch/routing'].post;
    expect(operation).toMatchObject({
      operationId: 'createRouting',
      security: [{ bearerAuth: ['orch:write'] }],
      'x-rate-limit-category': 'routing-requests',
    });
    expect(operation.requestBody.content['application/json'].schema).toEqual({
      $ref: '#/components/schemas/RoutingRequest',
    });
    expect(operation.responses['400'].content['application/problem+json'].schema).toEqual({
      $ref: '#/components/schemas/Problem',
    });
    expect(operation.parameters).toEqual(
      expect.arrayContaining([expect.objectContaining({ in: 'header', name: 'idempotency-key' })]),
    );
    expect(doc.components.schemas.RoutingRequest.properties.ai_confidence).toMatchObject({
      type: 'number',
      minimum: 0,
      maximum: 1,
    });
    expect(doc.components.schemas.RoutingRequest.required).toContain('ai_confidence');
    expect(doc.components.schemas.Problem.required).toEqual(
      expect.arrayContaining(['type', 'title', 'status', 'instance', 'request_id']),
    );
    expect(doc.components.securitySchemes.bearerAuth).toMatchObject({ type: 'http', scheme: 'bearer' });
  });

  it('serves /docs as HTML whose scripts and styles all come from this server', async () => {
    const page = await call(stack.baseUrl, 'GET', '/docs');
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    const assets = [...page.text.matchAll(/(?:src|href)="([^"]+)"/g)].map((match) => match[1]!);
    expect(assets).toEqual(
      expect.arrayContaining(['/docs/assets/swagger-ui-bundle.js', '/docs/assets/swagger-ui.css']),
    );
    expect(page.text).not.toMatch(/https?:\/\//);

    for (const asset of assets) {
      const reply = await fetch(`${stack.baseUrl}${asset}`);
      expect({ asset, status: reply.status }).toEqual({ asset, status: 200 });
      expect(reply.headers.get('content-type')).toMatch(asset.endsWith('.css') ? /^text\/css/ : /javascript/);
      expect((await reply.arrayBuffer()).byteLength).toBeGreaterThan(asset.endsWith('init.js') ? 10 : 10_000);
    }
  });
});

describe('CORS', () => {
  const preflight = (origin: string) =>
    call(stack.baseUrl, 'OPTIONS', '/v1/orch/routing', {
      headers: {
        origin,
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'authorization,content-type,idempotency-key',
      },
    });
  const list = (s: string | null) => (s ?? '').split(',').map((item) => item.trim().toLowerCase());

  it('answers a preflight from an allowed origin with the methods and headers the API takes', async () => {
    const reply = await preflight(ALLOWED_ORIGIN);
    expect(reply.status).toBe(204);
    expect(reply.headers.get('access-control-allow-origin')).toBe(ALLOWED_ORIGIN);
    expect(list(reply.headers.get('access-control-allow-methods'))).toEqual(['get', 'post', 'put', 'patch', 'delete']);
    expect(list(reply.headers.get('access-control-allow-headers'))).toEqual(
      expect.arrayContaining(['authorization', 'content-type', 'idempotency-key']),
    );
    expect(list(reply.headers.get('vary'))).toContain('origin');
  });

  it('lets an allowed origin read the rate-limit headers', async () => {
    const reply = await call(stack.baseUrl, 'GET', '/v1/orch/reviewers', {
      token,
      headers: { origin: ALLOWED_ORIGIN },
    });
    expect(reply.status).toBe(200);
    expect(reply.headers.get('access-control-allow-origin')).toBe(ALLOWED_ORIGIN);
    expect(list(reply.headers.get('access-control-expose-headers'))).toEqual(
      expect.arrayContaining([
        'x-ratelimit-limit',
        'x-ratelimit-remaining',
        'x-ratelimit-reset',
        'x-request-id',
        'retry-after',
        'idempotent-replayed',
      ]),
    );
  });

  it('gives a disallowed origin no Access-Control-Allow-Origin', async () => {
    const pre = await preflight('https://evil.example');
    expect(pre.headers.get('access-control-allow-origin')).toBeNull();
    const reply = await call(stack.baseUrl, 'GET', '/v1/orch/reviewers', {
      token,
      headers: { origin: 'https://evil.example' },
    });
    expect(reply.headers.get('access-control-allow-origin')).toBeNull();
  });
});

import { startExtraApp, type ExtraApp } from '../support/app';
import { call, expectProblem, type CallResult } from '../support/http';
import { startStack, type Stack } from '../support/stack';

const LIMIT = 3;
const WINDOW_SECONDS = 3600;

let stack: Stack;
let second: ExtraApp;

beforeAll(async () => {
  stack = await startStack({ RATE_LIMIT_DEFAULT: String(LIMIT), RATE_LIMIT_WINDOW_SECONDS: String(WINDOW_SECONDS) });
  second = await startExtraApp(stack);
});
afterAll(async () => {
  await second?.close();
  await stack?.stop();
});

// Counters live in fixed windows; a test that straddled a window's end would see its count reset.
beforeEach(async () => {
  const untilNextWindow = WINDOW_SECONDS * 1000 - (Date.now() % (WINDOW_SECONDS * 1000));
  if (untilNextWindow < 5000) await new Promise((resolve) => setTimeout(resolve, untilNextWindow + 100));
});

const listAs = async (subject: string, baseUrl = stack.baseUrl) =>
  call(baseUrl, 'GET', '/v1/orch/reviewers', { token: await stack.token(['orch:read'], subject) });
const remaining = (reply: CallResult) => reply.headers.get('x-ratelimit-remaining');

describe('rate limits', () => {
  it('reports limit, remaining, reset and resource on every response', async () => {
    const before = Math.floor(Date.now() / 1000);
    const reply = await listAs('headers');
    expect(reply.status).toBe(200);
    expect(reply.headers.get('x-ratelimit-limit')).toBe(String(LIMIT));
    expect(remaining(reply)).toBe(String(LIMIT - 1));
    expect(reply.headers.get('x-ratelimit-resource')).toBe('default');
    const reset = Number(reply.headers.get('x-ratelimit-reset'));
    expect(Number.isInteger(reset)).toBe(true);
    expect(reset % WINDOW_SECONDS).toBe(0);
    expect(reset).toBeGreaterThan(before);
    expect(reset).toBeLessThanOrEqual(before + WINDOW_SECONDS);
  });

  it('reports them on 401 answers too, counted per client address', async () => {
    const anonymous = (address: string) =>
      call(stack.baseUrl, 'GET', '/v1/orch/reviewers', { headers: { 'x-forwarded-for': address } });
    const first = await anonymous('203.0.113.10');
    expectProblem(first, 401, 'unauthorized');
    expect(first.headers.get('x-ratelimit-limit')).toBe(String(LIMIT));
    expect(remaining(first)).toBe(String(LIMIT - 1));
    expect(remaining(await anonymous('203.0.113.10'))).toBe(String(LIMIT - 2));
    expect(remaining(await anonymous('203.0.113.11'))).toBe(String(LIMIT - 1));
  });

  it('answers 429 with Retry-After and retry_after_seconds once the limit is used up', async () => {
    for (let i = 1; i <= LIMIT; i += 1) expect(remaining(await listAs('greedy'))).toBe(String(LIMIT - i));
    const refused = await listAs('greedy');
    expectProblem(refused, 429, 'rate_limit_exceeded');
    const retryAfter = Number(refused.headers.get('retry-after'));
    expect(refused.body.retry_after_seconds).toBe(retryAfter);
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(WINDOW_SECONDS);
    expect(Number(refused.headers.get('x-ratelimit-reset')) - Math.floor(Date.now() / 1000)).toBeGreaterThanOrEqual(
      retryAfter - 1,
    );
    expect(remaining(refused)).toBe('0');
    expect(refused.headers.get('x-ratelimit-limit')).toBe(String(LIMIT));
  });

  it('counts per principal: another caller still has its quota', async () => {
    for (let i = 0; i <= LIMIT; i += 1) await listAs('exhausted');
    expect((await listAs('exhausted')).status).toBe(429);
    const other = await listAs('patient');
    expect(other.status).toBe(200);
    expect(remaining(other)).toBe(String(LIMIT - 1));
  });

  it('counts per category: a used-up default limit leaves routing requests alone', async () => {
    for (let i = 0; i <= LIMIT; i += 1) await listAs('category');
    expect((await listAs('category')).status).toBe(429);
    const routing = await call(stack.baseUrl, 'GET', '/v1/orch/routing/rt_00000000-0000-0000-0000-000000000000', {
      token: await stack.token(['orch:read'], 'category'),
    });
    expect(routing.status).toBe(404);
    expect(routing.headers.get('x-ratelimit-resource')).toBe('routing-requests');
  });

  it('shares one count between API instances on the same database', async () => {
    const replies = [
      await listAs('two-instances', stack.baseUrl),
      await listAs('two-instances', second.baseUrl),
      await listAs('two-instances', stack.baseUrl),
      await listAs('two-instances', second.baseUrl),
    ];
    expect(replies.map((reply) => [reply.status, remaining(reply)])).toEqual([
      [200, '2'],
      [200, '1'],
      [200, '0'],
      [429, '0'],
    ]);
  });

  it('counts concurrent requests exactly', async () => {
    const token = await stack.token(['orch:read'], 'burst');
    const replies = await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        call(i % 2 ? second.baseUrl : stack.baseUrl, 'GET', '/v1/orch/reviewers', { token }),
      ),
    );
    expect(replies.filter((reply) => reply.status === 200)).toHaveLength(LIMIT);
    expect(replies.filter((reply) => reply.status === 429)).toHaveLength(6 - LIMIT);
  });

  it('leaves operational endpoints unlimited', async () => {
    const reply = await call(stack.baseUrl, 'GET', '/healthz');
    expect(reply.status).toBe(200);
    expect(reply.headers.get('x-ratelimit-limit')).toBeNull();
  });
});

describe('X-RateLimit-* over every operation', () => {
  // Operational endpoints answer whatever the load and without Postgres (readiness reports it down): never counted, no headers.
  const UNMETERED = [
    'GET /.well-known/jwks.json',
    'GET /docs',
    'GET /docs/init.js',
    'GET /healthz',
    'GET /openapi.json',
    'GET /problems/{code}',
    'GET /readyz',
    'GET /v1/platform/health',
  ];

  it('counts every operation but the operational ones, and names its category on the answer', async () => {
    // eslint-disable-next-line @typescript-eslint/no-explicit-any -- the document is read as the JSON a client gets
    const paths = (await call(stack.baseUrl, 'GET', '/openapi.json')).body.paths as Record<string, Record<string, any>>;
    const unmetered: string[] = [];
    const answers: Array<{ name: string; headers: Array<string | null> }> = [];
    const expected: Array<{ name: string; headers: unknown[] }> = [];
    let caller = 0;
    for (const [path, item] of Object.entries(paths)) {
      for (const [method, operation] of Object.entries(item)) {
        const name = `${method.toUpperCase()} ${path}`;
        caller += 1;
        // Without credentials, from an address of its own: the limit is not what this test is about.
        const reply = await call(stack.baseUrl, method.toUpperCase(), path.replace(/\{\w+\}/g, 'x'), {
          headers: { 'x-forwarded-for': `198.18.${caller >> 8}.${caller & 255}` },
        });
        const category = operation['x-rate-limit-category'] as string | undefined;
        if (!category) unmetered.push(name);
        answers.push({
          name,
          headers: ['limit', 'remaining', 'reset', 'resource'].map((header) =>
            reply.headers.get(`x-ratelimit-${header}`),
          ),
        });
        const number = expect.stringMatching(/^\d+$/);
        expected.push({ name, headers: category ? [number, number, number, category] : [null, null, null, null] });
      }
    }
    expect(answers).toEqual(expected);
    expect(unmetered.sort()).toEqual(UNMETERED);
  });

  it.each([
    [
      'a body over BODY_LIMIT (413)',
      {
        raw: JSON.stringify({ ai_confidence: 0.9, context: { note: 'x'.repeat(300 * 1024) } }),
        headers: { 'content-type': 'application/json' },
      },
      413,
    ],
    ['a body that is not JSON (415)', { raw: 'ai_confidence=0.9', headers: { 'content-type': 'text/plain' } }, 415],
    ['malformed JSON (400)', { raw: '{"ai_confidence":', headers: { 'content-type': 'application/json' } }, 400],
  ])('reports them on the refusal of %s, before the body is read', async (_name, options, status) => {
    const reply = await call(stack.baseUrl, 'POST', '/v1/orch/routing', {
      ...options,
      token: await stack.token(['orch:write'], `refused-${status}`),
    });
    expect(reply.status).toBe(status);
    expect(reply.headers.get('x-ratelimit-resource')).toBe('routing-requests');
    expect(remaining(reply)).toBe(String(Number(reply.headers.get('x-ratelimit-limit')) - 1));
  });
});

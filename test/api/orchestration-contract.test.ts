import { loadConfig } from '../../app/config';
import { registerAgent, taskId } from '../support/agents';
import { call, client, expectProblem } from '../support/http';
import { startStack, type Stack } from '../support/stack';

const ORIGIN = 'https://console.example';
const DEPRECATIONS = [
  {
    prefix: '/v1/orch/reviewers',
    deprecated_at: '2026-06-01T00:00:00Z',
    sunset: '2027-12-01T00:00:00Z',
    link: 'https://docs.example/migrate/reviewers',
  },
];

let stack: Stack;
let admin: ReturnType<typeof client>;

beforeAll(async () => {
  stack = await startStack({
    CORS_ALLOWED_ORIGINS: ORIGIN,
    API_DEPRECATIONS: JSON.stringify(DEPRECATIONS),
    RATE_LIMIT_SAFETY_CHECKS: '3',
  });
  admin = client(stack.baseUrl, await stack.token());
});
afterAll(() => stack?.stop());

describe('deprecated versions', () => {
  it('carry Sunset, Deprecation and a Link to the migration guide, readable cross-origin', async () => {
    const reply = await admin('GET', '/v1/orch/reviewers', { headers: { origin: ORIGIN } });
    expect(reply.status).toBe(200);
    expect(reply.headers.get('sunset')).toBe('Wed, 01 Dec 2027 00:00:00 GMT');
    expect(reply.headers.get('deprecation')).toBe(`@${Date.parse('2026-06-01T00:00:00Z') / 1000}`);
    expect(reply.headers.get('link')).toBe(
      '<https://docs.example/migrate/reviewers>; rel="deprecation"; type="text/html", <https://docs.example/migrate/reviewers>; rel="sunset"; type="text/html"',
    );
    const exposed = (reply.headers.get('access-control-expose-headers') ?? '').toLowerCase().split(/,\s*/);
    expect(exposed).toEqual(
      expect.arrayContaining(['sunset', 'deprecation', 'link', 'x-ratelimit-limit', 'x-ratelimit-remaining']),
    );
  });

  it('leave other paths alone', async () => {
    const reply = await admin('GET', '/v1/orch/agents');
    expect(reply.headers.get('sunset')).toBeNull();
    expect(reply.headers.get('deprecation')).toBeNull();
  });

  it('are configured as JSON, checked at boot', () => {
    expect(loadConfig({ API_DEPRECATIONS: JSON.stringify(DEPRECATIONS) }).API_DEPRECATIONS).toEqual(DEPRECATIONS);
    expect(() => loadConfig({ API_DEPRECATIONS: 'v1 until 2027' })).toThrow(/API_DEPRECATIONS/);
    expect(() => loadConfig({ API_DEPRECATIONS: '[{"prefix":"v1","sunset":"soon"}]' })).toThrow(/API_DEPRECATIONS/);
  });
});

describe('CORS for the agent operations', () => {
  it('allows the agent headers in a preflight from an allowed origin', async () => {
    const reply = await call(stack.baseUrl, 'OPTIONS', '/v1/orch/route', {
      headers: {
        origin: ORIGIN,
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'authorization,content-type,idempotency-key,x-agent-id,x-confidence-score',
      },
    });
    expect(reply.status).toBe(204);
    expect(reply.headers.get('access-control-allow-origin')).toBe(ORIGIN);
    expect((reply.headers.get('access-control-allow-headers') ?? '').toLowerCase().split(',')).toEqual(
      expect.arrayContaining(['authorization', 'content-type', 'idempotency-key', 'x-agent-id', 'x-confidence-score']),
    );
  });
});

describe('rate limits per category', () => {
  it('counts safety checks apart from routing requests, with the category in X-RateLimit-Resource', async () => {
    const agent = await registerAgent(admin);
    const as = client(stack.baseUrl, agent.api_key);
    const check = () => as('POST', '/v1/orch/safety/check', { json: { action: 'x', actor: { type: 'ai_agent' } } });
    for (let i = 1; i <= 3; i += 1) {
      const reply = await check();
      expect([reply.status, reply.headers.get('x-ratelimit-resource'), reply.headers.get('x-ratelimit-limit')]).toEqual(
        [200, 'safety-checks', '3'],
      );
    }
    const refused = await check();
    expectProblem(refused, 429, 'rate_limit_exceeded');
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    const boundaries = await as('GET', '/v1/orch/boundaries?action=x');
    expectProblem(boundaries, 429, 'rate_limit_exceeded');

    const routed = await as('POST', '/v1/orch/route', {
      json: { task_id: taskId(), ai_assessment: { confidence: 0.9 } },
    });
    expect([routed.status, routed.headers.get('x-ratelimit-resource')]).toEqual([200, 'routing-requests']);
    const logged = await as('POST', '/v1/orch/provenance', { json: { task_id: 'none', action: 'x', reasoning: 'y' } });
    expect(logged.headers.get('x-ratelimit-resource')).toBe('provenance-queries');
    expect(
      (await admin('GET', `/v1/orch/agents/${encodeURIComponent(agent.agent_id)}`)).headers.get('x-ratelimit-resource'),
    ).toBe('agent-monitoring');
  });
});

describe('the contract in the OpenAPI document', () => {
  const operations: Array<[string, string, string, string]> = [
    ['post', '/v1/orch/route', 'orch:agent', 'routing-requests'],
    ['post', '/v1/orch/batch-route', 'orch:agent', 'routing-requests'],
    ['post', '/v1/orch/confidence', 'orch:agent', 'routing-requests'],
    ['post', '/v1/orch/escalate', 'orch:agent', 'routing-requests'],
    ['post', '/v1/orch/provenance', 'orch:agent', 'provenance-queries'],
    ['get', '/v1/orch/boundaries', 'orch:agent', 'safety-checks'],
    ['get', '/v1/orch/routing/history', 'orch:read', 'routing-requests'],
    ['post', '/v1/orch/routing/{routing_id}/feedback', 'orch:write', 'routing-requests'],
    ['post', '/v1/orch/escalation/rules', 'orch:admin', 'default'],
    ['get', '/v1/orch/escalation/rules', 'orch:read', 'default'],
    ['get', '/v1/orch/escalation/rules/{rule_id}', 'orch:read', 'default'],
    ['patch', '/v1/orch/escalation/rules/{rule_id}', 'orch:admin', 'default'],
    ['delete', '/v1/orch/escalation/rules/{rule_id}', 'orch:admin', 'default'],
    ['post', '/v1/orch/escalation/rules/{rule_id}/enable', 'orch:admin', 'default'],
    ['post', '/v1/orch/escalation/rules/{rule_id}/disable', 'orch:admin', 'default'],
    ['post', '/v1/orch/escalation/rules/dry-run', 'orch:read', 'default'],
    ['post', '/v1/orch/escalation/manual', 'orch:write', 'routing-requests'],
    ['post', '/v1/orch/safety/check', 'orch:agent', 'safety-checks'],
    ['get', '/v1/orch/safety/config', 'orch:read', 'safety-checks'],
    ['put', '/v1/orch/safety/config/{domain}', 'orch:admin', 'safety-checks'],
    ['post', '/v1/orch/agents/register', 'orch:admin', 'agent-monitoring'],
    ['get', '/v1/orch/agents/{agent_id}/performance', 'orch:read', 'agent-monitoring'],
  ];

  it.each(operations)('documents %s %s with scope %s and category %s', async (method, path, scope, category) => {
    const doc = (await call(stack.baseUrl, 'GET', '/openapi.json')).body;
    const operation = doc.paths[path]?.[method];
    expect(operation).toMatchObject({ security: [{ bearerAuth: [scope] }], 'x-rate-limit-category': category });
    expect(operation.responses['400'].content['application/problem+json']).toBeDefined();
  });

  it('documents the agent headers of /route', async () => {
    const doc = (await call(stack.baseUrl, 'GET', '/openapi.json')).body;
    const names = doc.paths['/v1/orch/route'].post.parameters
      .filter((p: { in: string }) => p.in === 'header')
      .map((p: { name: string }) => p.name);
    expect(names).toEqual(expect.arrayContaining(['x-agent-id', 'x-confidence-score', 'idempotency-key']));
  });

  it.each([
    ['agent_not_registered', 403],
    ['safety_violation', 403],
    ['escalation_required', 422],
    ['rule_conflict', 409],
    ['confidence_below_threshold', 422],
  ])('serves the problem type %s with status %i', async (code, status) => {
    const reply = await call(stack.baseUrl, 'GET', `/problems/${code}`);
    expect(reply.body).toMatchObject({ type: `/problems/${code}`, status });
  });
});

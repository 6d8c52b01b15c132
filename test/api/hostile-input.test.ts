import { connect } from 'node:net';
import { expectProblem, type CallResult } from '../support/http';
import { useStack } from '../support/stack';

let token: string;

const stack = useStack({ OUTBOUND_PRIVATE_ALLOWLIST: '127.0.0.1' });
beforeAll(async () => {
  token = await stack.token();
});

/** Hostile input must be refused at once: a request still unanswered after this long hangs. */
const ANSWER_WITHIN_MS = 5000;

async function send(
  method: string,
  path: string,
  options: { json?: unknown; raw?: string; headers?: Record<string, string> } = {},
): Promise<CallResult> {
  const hasBody = options.json !== undefined || options.raw !== undefined;
  const response = await fetch(`${stack.baseUrl}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${token}`,
      ...(hasBody ? { 'content-type': 'application/json' } : {}),
      ...options.headers,
    },
    body: options.json !== undefined ? JSON.stringify(options.json) : options.raw,
    signal: AbortSignal.timeout(ANSWER_WITHIN_MS),
  });
  const text = await response.text();
  const isJson = /[/+]json\b/.test(response.headers.get('content-type') ?? '');
  return {
    status: response.status,
    headers: response.headers,
    body: isJson && text ? JSON.parse(text) : undefined,
    text,
  };
}

/** Rows of the tables a write of any of these routes touches. */
async function rowCounts(): Promise<Record<string, number>> {
  const tables = [
    'routings',
    'approvals',
    'webhook_subscriptions',
    'ledger_entries',
    'outbox_events',
    'idempotency_keys',
    'service_accounts',
  ];
  const counts = await Promise.all(
    tables.map(async (table) =>
      Number((await stack.database.db(table).count<{ count: string }[]>({ count: '*' }))[0]!.count),
    ),
  );
  return Object.fromEntries(tables.map((table, index) => [table, counts[index]!]));
}

function expectFieldError(reply: CallResult, field: string, code?: string): void {
  expectProblem(reply, 400, 'validation_failed');
  expect(reply.body.errors).toEqual(
    expect.arrayContaining([expect.objectContaining({ field, ...(code ? { code } : {}) })]),
  );
}

const NUL = 'a\u0000b';
const LONE_SURROGATE = 'x\ud800y';

const routing = (context: Record<string, unknown>) => ({
  task_type: 'summarize',
  ai_agent_id: 'urn:acme:agent:sum:1',
  ai_confidence: 0.95,
  context,
});
const approval = (extra: Record<string, unknown> = {}) => ({
  org_did: 'did:web:acme.example',
  agent_id: 'agent://acme/payer@1.0.0',
  requester_passport_id: 'did:web:acme.example:agents:payer',
  approver_passport_id: 'did:web:acme.example:people:cfo',
  action_description: 'Pay invoice 42 to Globex',
  request_data: { amount: 25_000, currency: 'EUR' },
  ...extra,
});
const subscription = (extra: Record<string, unknown> = {}) => ({
  url: 'http://127.0.0.1:9/hooks',
  events: ['routing.decided'],
  ...extra,
});

describe('strings PostgreSQL cannot store (U+0000, lone UTF-16 surrogates)', () => {
  it.each([
    ['a NUL in a routing’s context (starts a workflow)', '/v1/orch/routing', routing({ note: NUL }), 'context.note'],
    [
      'a lone surrogate in a routing’s context, deep in an array',
      '/v1/orch/routing',
      routing({ items: [{ note: LONE_SURROGATE }] }),
      'context.items.0.note',
    ],
    [
      'a NUL in an object key of a routing’s context',
      '/v1/orch/routing',
      routing({ [`k${NUL}`]: 1 }),
      'context.ka\\u0000b',
    ],
    [
      'a NUL in an approval’s request data (starts a workflow)',
      '/v1/approvals',
      approval({ request_data: { payee: NUL } }),
      'request_data.payee',
    ],
    [
      'a lone surrogate in an approval’s description',
      '/v1/approvals',
      approval({ action_description: LONE_SURROGATE }),
      'action_description',
    ],
    [
      'a lone surrogate in an object key of an approval’s request data',
      '/v1/approvals',
      approval({ request_data: { [LONE_SURROGATE]: 1 } }),
      'request_data.x\\ud800y',
    ],
    [
      'a NUL in a webhook subscription’s description',
      '/v1/orch/webhooks',
      subscription({ description: NUL }),
      'description',
    ],
    [
      'a lone surrogate in a webhook subscription’s event',
      '/v1/orch/webhooks',
      subscription({ events: [`routing.${LONE_SURROGATE}`] }),
      'events.0',
    ],
  ])('answers 400 at once for %s, naming the field, and writes nothing', async (_name, path, body, field) => {
    const before = await rowCounts();
    const reply = await send('POST', path, { json: body });
    expectFieldError(reply, field);
    expect(await rowCounts()).toEqual(before);
  });

  it('refuses them with an Idempotency-Key too, and the key stays free for a corrected request', async () => {
    const key = `hostile-${Math.random()}`;
    expectFieldError(
      await send('POST', '/v1/approvals', {
        json: approval({ request_data: { payee: NUL } }),
        headers: { 'idempotency-key': key },
      }),
      'request_data.payee',
    );
    const corrected = await send('POST', '/v1/approvals', { json: approval(), headers: { 'idempotency-key': key } });
    expect(corrected.status).toBe(201);
  });

  it.each([
    ['a list filter', '/v1/events?subject_id=a%00b', 'query.subject_id'],
    ['a list filter of routings', '/v1/orch/routing/history?task_type=%00', 'query.task_type'],
    ['a query key', '/v1/events?a%00b=1', 'query.a\\u0000b'],
    ['a path parameter', '/v1/events/evt_%00', 'path.event_id'],
    ['a path parameter of deliveries', '/v1/orch/webhooks/wh%00/deliveries', 'path.subscription_id'],
  ])('answers 400 for a NUL in %s, naming the parameter', async (_name, path, field) => {
    expectFieldError(await send('GET', path), field);
  });

  it('answers 400 for a NUL in the client id of HTTP Basic credentials, and in one in the body', async () => {
    const before = await rowCounts();
    const basic = `Basic ${Buffer.from('client%00id:secret').toString('base64')}`;
    const inHeader = await send('POST', '/oauth/token', {
      json: { grant_type: 'client_credentials' },
      headers: { authorization: basic },
    });
    expectFieldError(inHeader, 'header.authorization');
    expect(inHeader.body).toMatchObject({ error: 'invalid_request' });
    const form = await send('POST', '/oauth/token', {
      raw: 'grant_type=client_credentials&client_id=a%00b&client_secret=s',
      headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: '' },
    });
    expectFieldError(form, 'client_id');
    expect(await rowCounts()).toEqual(before);
  });

  it('never lets a NUL in a stored header (X-Agent-ID) through: the HTTP parser refuses it before the app', async () => {
    const before = await rowCounts();
    const { port } = new URL(stack.baseUrl);
    const body = JSON.stringify({ task_id: 'hostile-1', ai_assessment: { confidence: 0.9 } });
    const answer = await new Promise<string>((resolve, reject) => {
      const socket = connect(Number(port), '127.0.0.1', () => {
        socket.end(
          `POST /v1/orch/agent/route HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${token}\r\nX-Agent-ID: urn:acme:agent:sum:1\u0000\r\n` +
            `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
          'latin1',
        );
      });
      let text = '';
      socket.setTimeout(ANSWER_WITHIN_MS, () => reject(new Error('no answer')));
      socket.on('data', (chunk) => (text += chunk.toString('latin1')));
      socket.on('end', () => resolve(text));
      socket.on('error', reject);
    });
    expect(answer).toMatch(/^HTTP\/1\.1 400 /);
    expect(await rowCounts()).toEqual(before);
  });

  it('still takes well-formed text beyond the Basic Multilingual Plane and control characters other than NUL', async () => {
    const reply = await send('POST', '/v1/orch/routing', { json: routing({ note: 'emoji 😀, tab\t, bell\u0007, é' }) });
    expect(reply.status).toBe(200);
  });
});

describe('numbers JSON cannot carry (1e999 parses to Infinity)', () => {
  it.each([
    ['without an Idempotency-Key', {}],
    ['with an Idempotency-Key', { 'idempotency-key': 'infinite-1' }],
  ])('answers 400 naming the field %s', async (_name, headers) => {
    const before = await rowCounts();
    const reply = await send('POST', '/v1/orch/routing', {
      raw: '{"task_type":"summarize","ai_confidence":0.9,"context":{"amount":-1e999}}',
      headers,
    });
    expectFieldError(reply, 'context.amount', 'invalid_type');
    const top = await send('POST', '/v1/approvals', {
      raw: JSON.stringify(approval()).replace('"amount":25000', '"amount":1e999'),
      headers,
    });
    expectFieldError(top, 'request_data.amount', 'invalid_type');
    expect(await rowCounts()).toEqual(before);
  });
});

describe('nesting depth (JSON_MAX_DEPTH, 32 by default)', () => {
  /** An approval whose request_data is `levels` nested objects: the deepest at level 1 + levels. */
  const nested = (levels: number) => {
    let value: unknown = 'deep';
    for (let level = 0; level < levels; level += 1) value = { n: value };
    return approval({ request_data: value as Record<string, unknown> });
  };

  it('takes a body nested to the limit and refuses one a level deeper, naming where it went too deep', async () => {
    expect((await send('POST', '/v1/approvals', { json: nested(31) })).status).toBe(201);
    const before = await rowCounts();
    const reply = await send('POST', '/v1/approvals', { json: nested(32) });
    expectFieldError(reply, `request_data${'.n'.repeat(31)}`, 'too_big');
    expect(await rowCounts()).toEqual(before);
  });

  it.each([1_000, 10_000, 100_000])(
    'answers 400 for arrays nested %i deep, with or without an Idempotency-Key',
    async (depth) => {
      const before = await rowCounts();
      const raw = `{"task_type":"summarize","ai_confidence":0.9,"context":{"deep":${'['.repeat(depth)}${']'.repeat(depth)}}}`;
      expectFieldError(await send('POST', '/v1/orch/routing', { raw }), `context.deep${'.0'.repeat(30)}`, 'too_big');
      expectFieldError(
        await send('POST', '/v1/orch/routing', { raw, headers: { 'idempotency-key': `deep-${depth}` } }),
        `context.deep${'.0'.repeat(30)}`,
        'too_big',
      );
      expect(await rowCounts()).toEqual(before);
    },
  );
});

describe('timestamps with offsets PostgreSQL refuses (beyond ±15:59) or the year 0', () => {
  // Future, so that an approval's deadline is refused for its offset, not for having passed.
  const HOSTILE = [
    '2027-06-01T00:00:00+16:00',
    '2027-06-01T00:00:00-23:59',
    '2027-06-01T00:00:00+99:00',
    '0000-01-01T00:00:00Z',
  ];

  it.each([
    ['/v1/events', 'created_at__gte'],
    ['/v1/events', 'created_at__lte'],
    ['/v1/orch/webhooks/whsub_x/deliveries', 'created_at__gte'],
    ['/v1/orch/webhooks/whsub_x/deliveries', 'created_at__lte'],
    ['/v1/orch/routing/history', 'date__gte'],
    ['/v1/orch/routing/history', 'date__lte'],
    ['/v1/orch/audit', 'date__gte'],
    ['/v1/orch/audit', 'start_date'],
  ])('answers 400 on %s?%s= naming the parameter', async (path, parameter) => {
    for (const value of HOSTILE) {
      const reply = await send('GET', `${path}?${parameter}=${encodeURIComponent(value)}`);
      expectFieldError(reply, `query.${parameter}`);
    }
    const fine = await send('GET', `${path}?${parameter}=${encodeURIComponent('2026-01-01T00:00:00+15:59')}`);
    expect(fine.status).not.toBe(400);
    expect(fine.status).toBeLessThan(500);
  });

  it('answers 400 for an approval’s expires_at and an attestation’s timestamp, naming the field', async () => {
    const before = await rowCounts();
    for (const value of HOSTILE) {
      expectFieldError(await send('POST', '/v1/approvals', { json: approval({ expires_at: value }) }), 'expires_at');
      const attestation = {
        agentId: 'urn:acme:agent:auditor:1',
        organizationId: 'org_acme',
        recordHash: 'f'.repeat(64),
        timestamp: value,
      };
      expectFieldError(await send('POST', '/v1/provenance/attestations', { json: attestation }), 'timestamp');
      expectFieldError(
        await send('POST', '/v1/provenance/query', { json: { query: '*', filters: { from: value } } }),
        'filters.from',
      );
    }
    expect(await rowCounts()).toEqual(before);
  });
});

import { Client, Connection } from '@temporalio/client';
import { createDb } from '../../db/connection';
import { PROBLEM_TYPES, type ProblemCode } from '../../api/problem';
import { capturingLogger, startExtraApp } from '../support/app';
import { call, expectProblem } from '../support/http';
import { devServerAddress, useStack } from '../support/stack';

let token: string;

const stack = useStack({ BODY_LIMIT: '1kb' });
beforeAll(async () => {
  token = await stack.token();
});

const api = (method: string, path: string, options: Parameters<typeof call>[3] = {}) =>
  call(stack.baseUrl, method, path, { token, ...options });

describe('RFC 9457 problems', () => {
  it('answers 400 malformed_json for a body that is not JSON', async () => {
    const reply = await api('POST', '/v1/orch/routing', {
      raw: '{"ai_confidence": 0.9,',
      headers: { 'content-type': 'application/json' },
    });
    expectProblem(reply, 400, 'malformed_json');
    expect(reply.body).toMatchObject({
      title: PROBLEM_TYPES.malformed_json.title,
      detail: expect.any(String),
      instance: '/v1/orch/routing',
    });
  });

  it('answers 413 payload_too_large for a body over BODY_LIMIT and accepts one under it', async () => {
    const over = await api('POST', '/v1/orch/routing', {
      json: { ai_confidence: 0.9, context: { note: 'x'.repeat(2048) } },
    });
    expectProblem(over, 413, 'payload_too_large');

    const under = await api('POST', '/v1/orch/routing', {
      json: { ai_confidence: 0.9, context: { note: 'x'.repeat(800) } },
    });
    expect(under.status).toBe(200);
  });

  it('answers 404 not_found for an unknown route, with the path (no query) as instance', async () => {
    const reply = await api('GET', '/v1/orch/nothing-here?x=1');
    expectProblem(reply, 404, 'not_found');
    expect(reply.body.instance).toBe('/v1/orch/nothing-here');
  });

  it.each([
    ['DELETE', '/v1/orch/routing', 'POST'],
    ['GET', '/v1/orch/routing', 'POST'],
    ['POST', '/v1/orch/reviewers', 'GET, HEAD'],
    ['PATCH', '/v1/orch/reviewers/did:web:example.com:x', 'PUT'],
    ['DELETE', '/v1/orch/routing/rt_123', 'GET, HEAD'],
  ])('answers 405 with Allow for %s %s', async (method, path, allow) => {
    const reply = await api(method, path);
    expectProblem(reply, 405, 'method_not_allowed');
    expect(reply.headers.get('allow')).toBe(allow);
  });

  it('answers 400 Validation Failed with field, code, message, expected and received for each invalid body field', async () => {
    const reply = await api('POST', '/v1/orch/routing', {
      json: { ai_confidence: 'high', task_type: '', urgency: 'hgh' },
    });
    expectProblem(reply, 400, 'validation_failed');
    expect(reply.body.title).toBe('Validation Failed');
    expect(reply.body.errors).toEqual(
      expect.arrayContaining([
        {
          field: 'ai_confidence',
          code: 'invalid_type',
          message: expect.any(String),
          expected: 'number',
          received: 'string',
        },
        {
          field: 'task_type',
          code: 'too_small',
          message: expect.any(String),
          expected: 'at least 1 character',
          received: 'string of 0 characters',
        },
        {
          field: 'urgency',
          code: 'invalid_value',
          message: expect.any(String),
          expected: 'one of "low", "medium", "high", "urgent", "critical"',
          received: '"hgh"',
        },
      ]),
    );
  });

  it('says which values a discriminator takes, and which one it got', async () => {
    const reply = await api('POST', '/v1/orch/escalation/rules/dry-run', {
      json: {
        conditions: [{ condition_type: 'task_type', operator: '==', value: 'probe' }],
        actions: [{ action: 'explode' }],
      },
    });
    expectProblem(reply, 400, 'validation_failed');
    expect(reply.body.errors).toEqual([
      {
        field: 'actions.0.action',
        code: 'invalid_union',
        message: expect.any(String),
        expected: 'one of "escalate_to_human", "notify_supervisor"',
        received: '"explode"',
      },
    ]);
  });

  it('names a missing required field REQUIRED_FIELD_MISSING', async () => {
    const reply = await api('POST', '/v1/orch/routing', { json: { task_type: 'summarize' } });
    expectProblem(reply, 400, 'validation_failed');
    expect(reply.body.errors).toEqual([
      {
        field: 'ai_confidence',
        code: 'REQUIRED_FIELD_MISSING',
        message: expect.any(String),
        expected: 'number',
        received: 'missing',
      },
    ]);
  });

  it('never echoes a long value or a credential in received', async () => {
    const long = 'y'.repeat(600);
    const tooLong = await api('POST', '/v1/orch/routing', { json: { ai_confidence: 0.9, task_type: long } });
    expectProblem(tooLong, 400, 'validation_failed');
    expect(tooLong.body.errors).toEqual([
      expect.objectContaining({
        field: 'task_type',
        code: 'too_big',
        expected: 'at most 200 characters',
        received: 'string of 600 characters',
      }),
    ]);

    const credentials = await api('POST', '/v1/orch/webhooks', {
      json: { url: 'https://ops:hunter2-s3cret@hooks.example.com/in', events: ['*'] },
    });
    expectProblem(credentials, 400, 'validation_failed');
    expect(credentials.body.errors).toEqual([expect.objectContaining({ field: 'url', received: expect.any(String) })]);
    expect(credentials.text).not.toContain('hunter2');

    const longEnum = await api('POST', '/v1/orch/routing', { json: { ai_confidence: 0.9, urgency: 'z'.repeat(300) } });
    const received = longEnum.body.errors[0].received as string;
    expect(received.length).toBeLessThanOrEqual(40);
    expect(received).toMatch(/^"z+…"$/);
  });

  it('carries numbered remediation steps from the problem registry', async () => {
    const reply = await api('POST', '/v1/orch/routing', { json: { ai_confidence: 7 } });
    expectProblem(reply, 400, 'validation_failed');
    expect(reply.body.remediation).toEqual(
      PROBLEM_TYPES.validation_failed.remediation.map((description, index) => ({ step: index + 1, description })),
    );
    expect(reply.body.remediation.length).toBeGreaterThan(0);
  });

  it.each(Object.keys(PROBLEM_TYPES) as ProblemCode[])('has remediation steps for %s', (code) => {
    expect(PROBLEM_TYPES[code].remediation.length).toBeGreaterThan(0);
    for (const step of PROBLEM_TYPES[code].remediation) expect(step).toMatch(/^\S.{10,}$/);
  });

  it('names query and path fields by where they came from', async () => {
    const query = await api('GET', '/v1/orch/reviewers?limit=many');
    expectProblem(query, 400, 'validation_failed');
    expect(query.body.errors).toEqual([expect.objectContaining({ field: 'query.limit' })]);

    const path = await api('PUT', '/v1/orch/reviewers/not-a-did', { json: { display_name: 'Nobody' } });
    expectProblem(path, 400, 'validation_failed');
    expect(path.body.errors).toEqual([expect.objectContaining({ field: 'path.did', code: 'invalid_format' })]);
  });

  it.each([
    ['a value', '{"ai_confidence":0.9,"context":{"notes":["ok","cut \\ud83d"]}}', 'context.notes.1', 'invalid_format'],
    ['a key', '{"ai_confidence":0.9,"context":{"\\udc00":1}}', 'context.\\udc00', 'invalid_key'],
  ])(
    'answers 400 validation_failed for a lone surrogate in %s, which I-JSON refuses, before any fingerprint or record is taken',
    async (_where, raw, field, code) => {
      const reply = await api('POST', '/v1/orch/routing', {
        raw,
        headers: { 'content-type': 'application/json', 'idempotency-key': `lone-${field}` },
      });
      expectProblem(reply, 400, 'validation_failed');
      expect(reply.body.errors).toEqual([
        expect.objectContaining({ field, code, message: expect.stringContaining('unpaired UTF-16 surrogate') }),
      ]);
    },
  );

  it('accepts a string with a valid surrogate pair', async () => {
    const reply = await api('POST', '/v1/orch/routing', {
      raw: '{"ai_confidence":0.9,"context":{"note":"\\ud83d\\ude00"}}',
      headers: { 'content-type': 'application/json', 'idempotency-key': 'pair' },
    });
    expect(reply.status).toBe(200);
  });

  it.each([
    ['text/plain', 'ai_confidence=0.9'],
    ['application/x-www-form-urlencoded', 'ai_confidence=0.9'],
    ['application/json; charset=iso-8859-1', '{"ai_confidence":0.9}'],
  ])('answers 415 for a %s body', async (contentType, raw) => {
    const reply = await api('POST', '/v1/orch/routing', { raw, headers: { 'content-type': contentType } });
    expectProblem(reply, 415, 'unsupported_media_type');
  });

  it.each(['%', '%zz', '%E0%A4'])(
    'answers 400 invalid_request for a path parameter that is not percent-encoded UTF-8 (%s)',
    async (segment) => {
      for (const method of ['GET', 'DELETE'])
        expectProblem(await api(method, `/v1/orch/routing/${segment}`), 400, 'invalid_request');
    },
  );

  it('documents every error of every operation as a Problem, and every answer but 204 with its body', async () => {
    const doc = (await call(stack.baseUrl, 'GET', '/openapi.json')).body;
    type Content = Record<string, { schema?: { $ref?: string } }>;
    const responses = Object.entries(
      doc.paths as Record<string, Record<string, { responses: Record<string, { content?: Content }> }>>,
    ).flatMap(([path, item]) =>
      Object.entries(item).flatMap(([method, operation]) =>
        Object.entries(operation.responses).map(([status, response]) => ({
          at: `${method} ${path} ${status}`,
          status: Number(status),
          content: response.content,
        })),
      ),
    );
    const isProblem = (content: Content | undefined) =>
      content?.['application/problem+json']?.schema?.$ref === '#/components/schemas/Problem';
    expect(
      responses
        .filter((response) => response.status >= 400 && response.status < 500 && !isProblem(response.content))
        .map((r) => r.at),
    ).toEqual([]);
    expect(responses.filter((response) => response.status !== 204 && !response.content).map((r) => r.at)).toEqual([]);
  });

  it('serves each problem type at its type URI', async () => {
    const problem = await api('GET', '/v1/orch/nothing-here');
    const type = await call(stack.baseUrl, 'GET', problem.body.type);
    expect(type.status).toBe(200);
    expect(type.body).toEqual({
      type: '/problems/not_found',
      title: PROBLEM_TYPES.not_found.title,
      status: 404,
      remediation: PROBLEM_TYPES.not_found.remediation.map((description, index) => ({ step: index + 1, description })),
    });
  });
});

describe('unexpected errors', () => {
  const INTERNAL_KEYS = ['detail', 'incident_id', 'instance', 'remediation', 'request_id', 'status', 'title', 'type'];

  function expectOpaque500(
    reply: Awaited<ReturnType<typeof call>>,
    requestId: string,
    lines: Array<Record<string, unknown>>,
  ) {
    expectProblem(reply, 500, 'internal_error');
    expect(Object.keys(reply.body).sort()).toEqual(INTERNAL_KEYS);
    expect(reply.body.request_id).toBe(requestId);
    expect(reply.body.incident_id).toMatch(/^inc_[0-9a-f-]{36}$/);
    expect(reply.body.detail).toBe(
      `Something went wrong on our side; quote incident id ${reply.body.incident_id as string} (request id ${requestId})`,
    );
    expect(reply.text).not.toMatch(/Error|\bat .*\(|node_modules|\.ts:\d/);
    // The SRE finds the stack by the id the client quotes.
    const logged = lines.filter((line) => line.incident_id === reply.body.incident_id);
    expect(logged).toEqual([
      expect.objectContaining({
        level: 'error',
        request_id: requestId,
        error: expect.objectContaining({ stack: expect.any(String) }),
      }),
    ]);
  }

  it('answers 500 showing only the request and incident ids when a handler fails (Temporal connection closed)', async () => {
    const connection = await Connection.connect({ address: devServerAddress() });
    const { logger, lines } = capturingLogger();
    const app = await startExtraApp(stack, {
      temporal: new Client({ connection, namespace: stack.config.TEMPORAL_NAMESPACE }),
      logger,
    });
    await connection.close();
    try {
      // A compliance report starts its workflow in the request (a routing answers at commit and starts it after).
      const reply = await call(app.baseUrl, 'POST', '/v1/orch/compliance/report', {
        token,
        json: { report_type: 'quarterly_regulatory', period: '2026-Q3', domains: [], include_violations: true },
        headers: { 'x-request-id': 'trace-500-temporal' },
      });
      expectOpaque500(reply, 'trace-500-temporal', lines);
      expect(reply.headers.get('x-request-id')).toBe('trace-500-temporal');
    } finally {
      await app.close();
    }
  });

  it('answers 500 showing only the request and incident ids when a middleware fails (database pool destroyed)', async () => {
    const db = createDb({ connectionString: stack.database.url, poolMax: 1 });
    const { logger, lines } = capturingLogger();
    const app = await startExtraApp(stack, { db, logger });
    await db.destroy();
    try {
      const reply = await call(app.baseUrl, 'GET', '/v1/orch/reviewers', { token });
      expectOpaque500(reply, reply.headers.get('x-request-id')!, lines);
      expect(reply.body.request_id).toMatch(/^req_/);
      expect(reply.text).not.toMatch(/acquire|connection|knex|pool/i);
    } finally {
      await app.close();
    }
  });

  it('gives a deliberate 5xx problem an incident id too, logged with it', async () => {
    const { logger, lines } = capturingLogger();
    const app = await startExtraApp(stack, { config: { SECRETS_ENCRYPTION_KEY: undefined }, logger });
    try {
      const reply = await call(app.baseUrl, 'POST', '/v1/callback-secrets', { token });
      expectProblem(reply, 503, 'secrets_unavailable');
      expect(reply.body.incident_id).toMatch(/^inc_/);
      expect(lines.filter((line) => line.incident_id === reply.body.incident_id)).toEqual([
        expect.objectContaining({ level: 'error', request_id: reply.body.request_id, code: 'secrets_unavailable' }),
      ]);
    } finally {
      await app.close();
    }
  });

  it('gives no incident id to a client mistake', async () => {
    const reply = await api('GET', '/v1/orch/nothing-here');
    expect(reply.body.incident_id).toBeUndefined();
  });
});

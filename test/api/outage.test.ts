import { randomUUID } from 'node:crypto';
import { createDb, type Db } from '../../db/connection';
import { idempotencyLockSeconds } from '../../api/middleware/idempotency';
import { capturingLogger, startExtraApp, type ExtraApp } from '../support/app';
import { call, expectProblem, type CallResult } from '../support/http';
import { signedInPerson } from '../support/identity';
import { startStack, type Stack } from '../support/stack';
import { startTcpProxy, type TcpProxy } from '../support/tcp-proxy';

// Short bounds, so that the test sees them pass; production defaults are a few seconds more.
const TIMEOUTS = { acquireMs: 1000, statementMs: 1500, idleInTransactionMs: 30_000 };
const REQUEST_TIMEOUT_MS = 4000;
/** A seeded reviewer (scripts/dev-seed.ts) who takes medical diagnoses. */
const ADA = 'did:web:handoff.local:reviewers:ada';
/** What a bounded answer may take beyond its bound on a loaded two-core machine. */
const SLACK_MS = 1500;

let stack: Stack;
let proxy: TcpProxy;
let db: Db;
let app: ExtraApp;
let token: string;
const captured = capturingLogger();

beforeAll(async () => {
  stack = await startStack();
  const target = new URL(stack.database.url);
  proxy = await startTcpProxy({ host: target.hostname, port: Number(target.port || 5432) });
  db = createDb({ connectionString: proxy.via(stack.database.url), poolMax: 4, timeouts: TIMEOUTS });
  app = await startExtraApp(stack, { db, config: { REQUEST_TIMEOUT_MS }, logger: captured.logger });
  token = await stack.token();
});
afterAll(async () => {
  proxy?.restore();
  await app?.close();
  await db?.destroy();
  await proxy?.close();
  await stack?.stop();
});
afterEach(() => proxy.restore());

const approvalBody = () => ({
  org_did: 'did:web:acme.example',
  agent_id: 'agent://acme/payer@1.0.0',
  requester_passport_id: 'did:web:acme.example:agents:payer',
  approver_passport_id: 'did:web:acme.example:people:cfo',
  action_description: 'Pay invoice 42 to Globex',
  request_data: { amount: 100, currency: 'EUR' },
});

/** Operations of every kind: reads and writes, orchestration and platform, with and without a body. */
const OPERATIONS: Array<[string, string, () => Record<string, unknown>]> = [
  ['GET', '/v1/approvals', () => ({})],
  ['GET', '/v1/orch/reviewers', () => ({})],
  ['GET', '/v1/events', () => ({})],
  ['POST', '/v1/approvals', () => ({ json: approvalBody(), headers: { 'idempotency-key': `k-${randomUUID()}` } })],
  [
    'POST',
    '/v1/orch/routing',
    () => ({
      json: { task_type: 'summarize', ai_agent_id: 'urn:acme:agent:sum:1', ai_confidence: 0.93 },
      headers: { 'idempotency-key': `k-${randomUUID()}` },
    }),
  ],
];

async function timed(send: () => Promise<CallResult>): Promise<CallResult & { ms: number }> {
  const started = Date.now();
  const reply = await send();
  return { ...reply, ms: Date.now() - started };
}

function expectUnavailable(reply: CallResult) {
  expectProblem(reply, 503, 'service_unavailable');
  expect(reply.headers.get('retry-after')).toBe('5');
  expect(reply.body.incident_id).toMatch(/^inc_/);
}

describe('PostgreSQL down', () => {
  it.each(OPERATIONS)(
    '%s %s answers 503 service_unavailable with Retry-After, within the bound, while the database refuses connections',
    async (method, path, options) => {
      proxy.refuse();
      const reply = await timed(() => call(app.baseUrl, method, path, { token, ...options() }));
      expectUnavailable(reply);
      expect(reply.ms).toBeLessThan(TIMEOUTS.acquireMs + SLACK_MS);
      // The SRE sees which dependency failed, under the id the client quotes.
      expect(captured.lines.filter((line) => line.incident_id === reply.body.incident_id)).toEqual([
        expect.objectContaining({ level: 'error', message: 'dependency unavailable', dependency: 'postgres' }),
      ]);
    },
  );

  it('says unready while the database is down and ready once it is back, and requests succeed again at once', async () => {
    proxy.refuse();
    const unready = await call(app.baseUrl, 'GET', '/readyz');
    expect(unready.status).toBe(503);
    expect(unready.body.checks).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ name: 'postgres', ok: false }),
        { name: 'temporal', ok: true },
      ]),
    );
    proxy.restore();
    expect((await call(app.baseUrl, 'GET', '/readyz')).status).toBe(200);
    expect((await call(app.baseUrl, 'GET', '/v1/approvals', { token })).status).toBe(200);
  });

  it('answers 503 within the bound when the database stops answering mid-query, and the pool recovers once it answers again', async () => {
    // Warm the pool, so that its connections are open when the server goes quiet.
    await Promise.all([1, 2, 3].map(() => call(app.baseUrl, 'GET', '/v1/approvals', { token })));
    proxy.freeze();
    const replies = await Promise.all(
      OPERATIONS.map(([method, path, options]) =>
        timed(() => call(app.baseUrl, method, path, { token, ...options() })),
      ),
    );
    for (const reply of replies) {
      expectUnavailable(reply);
      expect(reply.ms).toBeLessThan(REQUEST_TIMEOUT_MS + SLACK_MS);
    }
    proxy.restore();
    const after = await timed(() => call(app.baseUrl, 'GET', '/v1/approvals', { token }));
    expect(after.status).toBe(200);
    expect(after.ms).toBeLessThan(TIMEOUTS.statementMs + SLACK_MS);
  });
});

describe('the request deadline and the Idempotency-Key lock', () => {
  // An instance with the short deadline on the stack's own database: the outages above played through the proxy stay out of it.
  let app: ExtraApp;
  beforeAll(async () => {
    app = await startExtraApp(stack, { config: { REQUEST_TIMEOUT_MS }, logger: captured.logger });
  });
  afterAll(() => app.close());

  it('cuts a request whose workflow does not answer at its deadline, holds its key until the deadline has passed, then the retry gets the one escalation', async () => {
    // An escalation by hand is an Update the routing workflow answers: with no worker running, nothing answers it.
    const ada = await signedInPerson(stack, { did: ADA });
    const routed = await call(app.baseUrl, 'POST', '/v1/orch/routing', {
      token,
      json: {
        task_type: 'medical_diagnosis',
        ai_agent_id: 'urn:acme:agent:diagnosis:7',
        ai_confidence: 0.4,
        required_capabilities: [{ capability_id: 'medical_diagnosis', min_weight: 0.8 }],
      },
    });
    expect(routed.body).toMatchObject({ decision: 'escalate_to_human', assigned_to: { did: ADA } });
    await stack.stopWorker();
    const key = `deadline-${randomUUID()}`;
    const escalate = () =>
      call(app.baseUrl, 'POST', '/v1/orch/escalation/manual', {
        token: ada.sessionToken,
        json: { routing_id: routed.body.routing_id, escalation_reason: 'second opinion' },
        headers: { 'idempotency-key': key },
      });
    try {
      const first = await timed(escalate);
      expectProblem(first, 503, 'service_unavailable');
      expect(first.headers.get('retry-after')).toBe('5');
      expect(first.ms).toBeGreaterThanOrEqual(REQUEST_TIMEOUT_MS - 100);
      expect(first.ms).toBeLessThan(REQUEST_TIMEOUT_MS + SLACK_MS);

      // The first request may still be finishing: a retry now does not run it again.
      const early = await escalate();
      expectProblem(early, 409, 'idempotency_request_in_flight');
      expect(Number(early.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      expect(Number(early.headers.get('retry-after'))).toBeLessThanOrEqual(5);

      const row = await stack.database
        .db('idempotency_keys')
        .where({ idempotency_key: key })
        .first<{ created_at: Date; locked_until: Date }>();
      const lockMs = row.locked_until.getTime() - row.created_at.getTime();
      expect(lockMs).toBeGreaterThan((idempotencyLockSeconds(REQUEST_TIMEOUT_MS) - 1) * 1000);
      expect(lockMs).toBeLessThanOrEqual(idempotencyLockSeconds(REQUEST_TIMEOUT_MS) * 1000 + 100);
    } finally {
      await stack.startWorker();
    }
    let retry: CallResult;
    const deadline = Date.now() + 30_000;
    do {
      await new Promise((resolve) => setTimeout(resolve, 1000));
      retry = await escalate();
    } while (retry.status === 409 && Date.now() < deadline);
    expect(retry.status).toBe(200);
    expect(retry.body).toMatchObject({
      status: 'assigned',
      assigned_to: { did: 'did:web:handoff.local:reviewers:alan' },
    });
    const again = await escalate();
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    const escalations = await stack.database
      .db('ledger_entries')
      .where({ subject_id: routed.body.routing_id as string })
      .whereLike('step_id', 'escalation%')
      .count<{ count: string }[]>({ count: '*' });
    expect(Number(escalations[0]!.count)).toBe(1);
  });
});

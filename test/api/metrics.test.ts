import type { Server } from 'node:http';
import { buildApp } from '../../api/app';
import { closeAppDeps, createAppDeps } from '../../app/deps';
import { metricsRegistryOf, serveMetrics } from '../../app/observability';
import { closeServer, listen } from '../../lib/http-server';
import { createLogger } from '../../lib/logger';
import { METRICS_CONTENT_TYPE } from '../../lib/metrics';
import { freePort } from '../../lib/net';
import { eventually } from '../support/eventually';
import { client } from '../support/http';
import { signedInPerson } from '../support/identity';
import { startStack, type Stack } from '../support/stack';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver';

/**
 * The API as `npm start` runs it with METRICS_PORT set: one registry for the API and the (stack's, in-process)
 * worker, scraped over HTTP on its own port after real traffic.
 */
let stack: Stack;
let apiServer: Server;
let metricsServer: Server;
let api: ReturnType<typeof client>;
let metricsUrl: string;
let baseUrl: string;
let closeDeps: () => Promise<void>;
let receiver: WebhookReceiver;

beforeAll(async () => {
  stack = await startStack({
    OUTBOUND_PRIVATE_ALLOWLIST: '127.0.0.1',
    WEBHOOK_RETRY_DELAYS_SECONDS: '1,1,1',
    WEBHOOK_RETRY_JITTER: '0',
  });
  receiver = await startWebhookReceiver();
  const config = { ...stack.config, METRICS_PORT: await freePort() };
  const logger = createLogger({ level: 'error', silent: true });
  const metrics = metricsRegistryOf(config, { api: true, worker: true });
  const deps = createAppDeps(config, {
    db: stack.database.db,
    temporal: stack.temporal,
    logger,
    listenUrl: undefined,
    metrics,
  });
  closeDeps = () => closeAppDeps(deps);
  apiServer = await listen(buildApp(deps), { host: '127.0.0.1', port: 0 });
  metricsServer = (await serveMetrics(config, metrics, { logger, worker: true }))!;
  metricsUrl = `http://127.0.0.1:${String(config.METRICS_PORT)}/metrics`;
  baseUrl = `http://127.0.0.1:${String((apiServer.address() as { port: number }).port)}`;
  api = client(baseUrl, await stack.token());
});
afterAll(async () => {
  if (apiServer) await closeServer(apiServer);
  if (metricsServer) await closeServer(metricsServer);
  await closeDeps?.();
  await stack?.stop();
  await receiver?.close();
});

async function scrape(): Promise<string> {
  const response = await fetch(metricsUrl);
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toBe(METRICS_CONTENT_TYPE);
  return response.text();
}

/** The value of the one sample of `name` whose labels include `labels`; 0 when there is none (a series not yet seen). */
function sample(text: string, name: string, labels: Record<string, string> = {}): number {
  const wanted = Object.entries(labels).map(([key, value]) => `${key}="${value}"`);
  const line = text.split('\n').find((candidate) => {
    const [series] = candidate.split(' ');
    if (series !== name && !series?.startsWith(`${name}{`)) return false;
    return wanted.every((pair) => series.includes(pair));
  });
  return line ? Number(line.split(' ').at(-1)) : 0;
}

describe('GET /metrics', () => {
  it('counts requests by route template, not raw path, with their duration in seconds', async () => {
    const before = await scrape();
    const routed = await api('POST', '/v1/orch/routing', {
      json: { task_type: 'summarize', ai_agent_id: 'urn:acme:agent:sum:1', ai_confidence: 0.93 },
    });
    expect(routed.status).toBe(200);
    expect((await api('GET', `/v1/orch/routing/${routed.body.routing_id}`)).status).toBe(200);
    expect((await api('GET', '/v1/orch/routing/rt_nobody')).status).toBe(404);
    expect((await api('GET', '/nothing/here')).status).toBe(404);
    const after = await scrape();

    const post = { method: 'POST', route: '/v1/orch/routing', status: '200' };
    expect(sample(after, 'http_server_request_duration_seconds_count', post)).toBe(
      sample(before, 'http_server_request_duration_seconds_count', post) + 1,
    );
    const byId = (status: string) => ({ method: 'GET', route: '/v1/orch/routing/{routing_id}', status });
    expect(sample(after, 'http_server_request_duration_seconds_count', byId('200'))).toBe(
      sample(before, 'http_server_request_duration_seconds_count', byId('200')) + 1,
    );
    expect(sample(after, 'http_server_request_duration_seconds_count', byId('404'))).toBe(
      sample(before, 'http_server_request_duration_seconds_count', byId('404')) + 1,
    );
    expect(
      sample(after, 'http_server_request_duration_seconds_count', { route: 'unmatched', status: '404' }),
    ).toBeGreaterThanOrEqual(1);
    expect(sample(after, 'http_server_request_duration_seconds_sum', post)).toBeGreaterThan(0);
    expect(sample(after, 'http_server_request_duration_seconds_bucket', { ...post, le: '+Inf' })).toBe(
      sample(after, 'http_server_request_duration_seconds_count', post),
    );
    expect(after).not.toContain(routed.body.routing_id);
  });

  it('counts routing decisions by decision and reason', async () => {
    const labels = { decision: 'ai_autonomous', reason: 'within_ai_authority' };
    const before = sample(await scrape(), 'handoff_routing_decisions_total', labels);
    const routed = await api('POST', '/v1/orch/routing', {
      json: { task_type: 'summarize', ai_agent_id: 'urn:acme:agent:sum:1', ai_confidence: 0.95 },
    });
    expect(routed.body).toMatchObject(labels);
    expect(sample(await scrape(), 'handoff_routing_decisions_total', labels)).toBe(before + 1);
  });

  it('counts escalations by the level reached', async () => {
    const lead = await signedInPerson(stack, { name: 'Lead' });
    const asLead = client(baseUrl, lead.sessionToken);
    await api('PUT', '/v1/orch/reviewers/did:web:example.com:reviewers:first', {
      json: { display_name: 'First', capabilities: { claims: 0.8 } },
    });
    await api('PUT', '/v1/orch/reviewers/did:web:example.com:reviewers:specialist', {
      json: { display_name: 'Specialist', capabilities: { claims: 0.9, fraud: 0.9 }, chain_level: 3 },
    });
    const routed = await api('POST', '/v1/orch/routing', {
      json: {
        task_type: 'claim',
        ai_confidence: 0.5,
        required_capabilities: [{ capability_id: 'claims', min_weight: 0.7 }],
      },
    });
    const before = sample(await scrape(), 'handoff_escalations_total', { level: 'urgent' });
    const escalated = await asLead('POST', '/v1/orch/escalation/manual', {
      json: {
        routing_id: routed.body.routing_id,
        escalation_reason: 'possible fraud',
        requested_by: lead.did,
        target_capability: 'fraud',
        urgency: 'urgent',
      },
    });
    expect(escalated.status).toBe(200);
    expect(sample(await scrape(), 'handoff_escalations_total', { level: 'urgent' })).toBe(before + 1);
  });

  it('observes the wait of an approval from opened to answered, and gauges what waits on humans at scrape time', async () => {
    const cfo = await signedInPerson(stack, { name: 'CFO' });
    const before = await scrape();
    const opened = await api('POST', '/v1/approvals', {
      json: {
        org_did: 'did:web:acme.example',
        agent_id: 'agent://acme/payer@1.0.0',
        requester_passport_id: 'did:web:acme.example:agents:payer',
        approver_passport_id: cfo.did,
        action_description: 'Pay invoice 42 to Globex',
        request_data: { amount: 25_000 },
      },
    });
    expect(opened.status).toBe(201);
    const waiting = await scrape();
    expect(sample(waiting, 'handoff_items_waiting_on_humans', { kind: 'approval' })).toBe(
      sample(before, 'handoff_items_waiting_on_humans', { kind: 'approval' }) + 1,
    );
    expect(sample(waiting, 'handoff_oldest_wait_on_humans_seconds', { kind: 'approval' })).toBeGreaterThanOrEqual(0);

    const answered = await client(baseUrl, cfo.sessionToken)('POST', `/v1/approvals/${opened.body.id}/respond`, {
      json: { decision: 'approved' },
    });
    expect(answered.status).toBe(200);
    const after = await scrape();
    const approved = { decision: 'approved' };
    expect(sample(after, 'handoff_approval_wait_seconds_count', approved)).toBe(
      sample(before, 'handoff_approval_wait_seconds_count', approved) + 1,
    );
    expect(sample(after, 'handoff_approval_wait_seconds_bucket', { ...approved, le: '+Inf' })).toBe(
      sample(after, 'handoff_approval_wait_seconds_count', approved),
    );
    expect(sample(after, 'handoff_items_waiting_on_humans', { kind: 'approval' })).toBe(
      sample(before, 'handoff_items_waiting_on_humans', { kind: 'approval' }),
    );
  });

  it('counts webhook attempts by outcome and observes the lag of the delivered ones', async () => {
    const subscribed = await api('POST', '/v1/orch/webhooks', {
      json: { url: receiver.url('/hooks'), events: ['routing.decided'] },
    });
    expect(subscribed.status).toBe(201);
    receiver.knowSecret('/hooks', subscribed.body.secret);
    // The first attempt fails; the retry a second later is delivered.
    receiver.respond('/hooks', (delivery, count) =>
      count === 1 ? { status: 503 } : { status: delivery.verified ? 200 : 400 },
    );
    const before = await scrape();
    expect(
      (await api('POST', '/v1/orch/routing', { json: { task_type: 'summarize', ai_confidence: 0.95 } })).status,
    ).toBe(200);

    const count = (text: string, outcome: string) =>
      sample(text, 'handoff_webhook_delivery_attempts_total', { outcome });
    const delivered = await eventually(
      scrape,
      (text) =>
        count(text, 'delivered') > count(before, 'delivered') && count(text, 'failed') > count(before, 'failed'),
      { timeoutMs: 20_000 },
    );
    // Read once more after a pause, so that no attempt is between its two counters.
    await new Promise((resolve) => setTimeout(resolve, 200));
    const after = await scrape();
    expect(count(delivered, 'failed')).toBeGreaterThan(count(before, 'failed'));
    // Every delivered attempt, and only those, is observed in the lag histogram; the one that failed first waited its retry (1 s).
    const deliveredMore = count(after, 'delivered') - count(before, 'delivered');
    expect(
      sample(after, 'handoff_webhook_delivery_lag_seconds_count') -
        sample(before, 'handoff_webhook_delivery_lag_seconds_count'),
    ).toBe(deliveredMore);
    expect(
      sample(after, 'handoff_webhook_delivery_lag_seconds_sum') -
        sample(before, 'handoff_webhook_delivery_lag_seconds_sum'),
    ).toBeGreaterThanOrEqual(1);
  });

  it('serves the outbox, ledger and revocation gauges and the Node runtime metrics', async () => {
    const text = await scrape();
    for (const name of [
      'handoff_outbox_backlog_events',
      'handoff_outbox_oldest_event_age_seconds',
      'handoff_ledger_seal_lag_seconds',
      'process_cpu_seconds_total',
      'nodejs_eventloop_lag_seconds',
    ]) {
      expect(text).toMatch(new RegExp(`^${name} \\d`, 'm'));
    }
    expect(text).toMatch(/^handoff_revocations\{kind="token"\} \d+$/m);
    expect(text).toMatch(/^handoff_revocations\{kind="delegation"\} \d+$/m);
    expect((await fetch(metricsUrl.replace('/metrics', '/other'))).status).toBe(404);
  });
});

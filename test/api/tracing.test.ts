import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import type { Server } from 'node:http';
import path from 'node:path';
import { SpanKind } from '@opentelemetry/api';
import { InMemorySpanExporter, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { makeWorkflowExporter } from '@temporalio/interceptors-opentelemetry';
import { Client, Connection } from '@temporalio/client';
import { historyFromJSON } from '@temporalio/common/lib/proto-utils';
import { NativeConnection, Worker, type WorkflowBundleWithSourceMap } from '@temporalio/worker';
import { buildApp } from '../../api/app';
import { closeAppDeps, createAppDeps, mailerOf, smsSenderOf, workerSettings } from '../../app/deps';
import { tracedClientOptions } from '../../app/temporal';
import { closeServer, listen } from '../../lib/http-server';
import { createLogger } from '../../lib/logger';
import { startTracing, type Tracing } from '../../lib/tracing';
import { bundleWorkflows, createWorker } from '../../workers/create-worker';
import { capturingLogger } from '../support/app';
import { eventually } from '../support/eventually';
import { client } from '../support/http';
import { startLocalProvider, type LocalProvider } from '../support/openai-provider';
import { startStack, type Stack } from '../support/stack';

/**
 * The API, its Temporal client and a worker of their own task queue, traced as the entries trace them when
 * OTEL_* asks, into an in-memory exporter: one request's spans from the HTTP server span to the activities.
 */
const exporter = new InMemorySpanExporter();
const BROWSER_ORIGIN = 'https://app.example.com';
let tracing: Tracing;
let stack: Stack;
let bundle: WorkflowBundleWithSourceMap;
let worker: Worker;
let running: Promise<void>;
let nativeConnection: NativeConnection;
let connection: Connection;
let server: Server;
let api: ReturnType<typeof client>;
let logLines: Array<Record<string, unknown>>;
let closeDeps: () => Promise<void>;
let provider: LocalProvider;

beforeAll(async () => {
  tracing = startTracing({ serviceName: 'handoff-test', destination: { exporter } });
  stack = await startStack();
  const taskQueue = `traced-${randomBytes(6).toString('hex')}`;
  provider = await startLocalProvider({ mode: 'answer', usage: { prompt_tokens: 120, completion_tokens: 30 } });
  const config = {
    ...stack.config,
    TEMPORAL_TASK_QUEUE: taskQueue,
    REASONING_PROVIDERS: { local: { base_url: provider.baseUrl } },
    CORS_ALLOWED_ORIGINS: [BROWSER_ORIGIN],
  };
  bundle = await bundleWorkflows(undefined, { traced: true });
  nativeConnection = await NativeConnection.connect({ address: config.TEMPORAL_ADDRESS });
  const logger = createLogger({ level: 'error', silent: true });
  worker = await createWorker({
    connection: nativeConnection,
    namespace: config.TEMPORAL_NAMESPACE,
    taskQueue,
    db: stack.database.db,
    workflowBundle: bundle,
    settings: workerSettings(config),
    mailer: mailerOf(config),
    sms: smsSenderOf(config),
    logger,
    tracing,
  });
  running = worker.run();
  connection = await Connection.connect({ address: config.TEMPORAL_ADDRESS });
  const temporal = new Client({ connection, namespace: config.TEMPORAL_NAMESPACE, ...tracedClientOptions(true) });
  const captured = capturingLogger();
  logLines = captured.lines;
  captured.logger.level = 'http';
  const deps = createAppDeps(config, {
    db: stack.database.db,
    temporal,
    logger: captured.logger,
    listenUrl: undefined,
    tracing,
  });
  closeDeps = () => closeAppDeps(deps);
  server = await listen(buildApp(deps), { host: '127.0.0.1', port: 0 });
  api = client(`http://127.0.0.1:${String((server.address() as { port: number }).port)}`, await stack.token());
});
afterAll(async () => {
  if (server) await closeServer(server);
  await closeDeps?.();
  if (worker?.getState() === 'RUNNING') worker.shutdown();
  await running;
  await nativeConnection?.close();
  await connection?.close();
  await stack?.stop();
  await tracing?.shutdown();
  await provider?.close();
});

const CALLER_TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const traceparent = `00-${CALLER_TRACE}-00f067aa0ba902b7-01`;

function spansOf(traceId: string): ReadableSpan[] {
  return exporter.getFinishedSpans().filter((span) => span.spanContext().traceId === traceId);
}

describe('tracing', () => {
  it('follows one request from its HTTP span through the workflow start to the activities, in the trace the caller sent', async () => {
    const created = await api('POST', '/v1/orch/compliance/report', {
      json: { report_type: 'spot_check', period: '2026-Q3', domains: [] },
      headers: { traceparent },
    });
    expect([201, 202]).toContain(created.status);

    const http = spansOf(CALLER_TRACE).find((span) => span.kind === SpanKind.SERVER);
    expect(http).toMatchObject({
      name: 'POST /v1/orch/compliance/report',
      attributes: { 'http.route': '/v1/orch/compliance/report', 'http.response.status_code': created.status },
    });
    expect(http?.parentSpanId).toBe('00f067aa0ba902b7');
    const start = spansOf(CALLER_TRACE).find((span) => span.name.startsWith('StartWorkflow:'));
    expect(start?.name).toBe('StartWorkflow:generateComplianceReportWorkflow');

    const names = await eventually(
      () => Promise.resolve(spansOf(CALLER_TRACE).map((span) => span.name)),
      (seen) => seen.includes('RunActivity:scanCompliancePage') && seen.includes('RunActivity:projectComplianceReport'),
    );
    expect(names).toEqual(
      expect.arrayContaining([
        'RunWorkflow:generateComplianceReportWorkflow',
        'StartActivity:scanCompliancePage',
        'RunActivity:scanCompliancePage',
      ]),
    );
  });

  it('writes the trace and span ids into the request log line', async () => {
    const reply = await api('GET', '/v1/orch/compliance/reports/rpt_nope', { headers: { traceparent } });
    const line = logLines.find(
      (entry) => entry.message === 'request' && entry.request_id === reply.headers.get('x-request-id'),
    );
    const span = spansOf(CALLER_TRACE).find(
      (candidate) =>
        candidate.kind === SpanKind.SERVER && candidate.attributes['http.response.status_code'] === reply.status,
    );
    expect(line).toMatchObject({ trace_id: CALLER_TRACE, span_id: span?.spanContext().spanId });
  });

  it('starts a trace of its own for a request without traceparent, named by route template', async () => {
    const reply = await api('GET', '/v1/orch/compliance/reports/rpt_missing');
    const line = logLines.find(
      (entry) => entry.message === 'request' && entry.request_id === reply.headers.get('x-request-id'),
    );
    expect(line?.trace_id).toMatch(/^[0-9a-f]{32}$/);
    expect(line?.trace_id).not.toBe(CALLER_TRACE);
    expect(spansOf(line!.trace_id as string).map((span) => span.name)).toEqual([
      expect.stringMatching(/^GET \/v1\/orch\/compliance\/reports\/\{report_id\}$/),
    ]);
  });

  it('gives a /v1/reason call a GenAI client span in the trace of its request, with the model, system and token usage', async () => {
    const registered = await api('POST', '/v1/models', {
      json: {
        model_id: 'local-model',
        provider: 'local',
        display_name: 'Local',
        capabilities: {
          reasoning: 7,
          coding: 7,
          summarization: 7,
          multilingual: 7,
          math_reasoning: 7,
          creative_writing: 7,
          instruction_following: 7,
        },
        context_length: 32_000,
        performance: { avg_latency_ms: 800, reliability: 0.99, success_rate: 0.99 },
        cost: { input_cost_per_1k: 0.002, output_cost_per_1k: 0.006 },
      },
    });
    expect(registered.status).toBe(201);
    const reasoned = await api('POST', '/v1/reason', {
      json: {
        messages: [{ role: 'user', content: 'What is six times seven?' }],
        pinned_model: 'local-model',
        max_tokens: 50,
      },
    });
    expect(reasoned.status).toBe(200);

    const chat = exporter.getFinishedSpans().find((span) => span.name === 'chat local-model');
    expect(chat).toMatchObject({
      kind: SpanKind.CLIENT,
      attributes: {
        'gen_ai.operation.name': 'chat',
        'gen_ai.system': 'local',
        'gen_ai.request.model': 'local-model',
        'gen_ai.request.max_tokens': 50,
        'gen_ai.usage.input_tokens': 120,
        'gen_ai.usage.output_tokens': 30,
      },
    });
    const http = spansOf(chat!.spanContext().traceId).find((span) => span.kind === SpanKind.SERVER);
    expect(http?.name).toBe('POST /v1/reason');
  });

  it('lets a browser send traceparent and tracestate (CORS preflight), so its trace continues into the API', async () => {
    const reply = await api('OPTIONS', '/v1/orch/routing', {
      headers: {
        origin: BROWSER_ORIGIN,
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'authorization,traceparent,tracestate',
      },
    });
    expect(reply.status).toBe(204);
    expect((reply.headers.get('access-control-allow-headers') ?? '').toLowerCase().split(',')).toEqual(
      expect.arrayContaining(['traceparent', 'tracestate']),
    );
  });

  it('replays every recorded history with the tracing interceptors in the bundle', async () => {
    const histories = path.join(__dirname, '..', 'workflows', 'histories');
    const files = readdirSync(histories).filter((file) => file.endsWith('.json'));
    expect(files.length).toBeGreaterThan(0);
    const sinks = { exporter: makeWorkflowExporter(tracing.spanProcessor, tracing.resource) };
    const recorded = files.map((file) => ({
      workflowId: file,
      history: historyFromJSON(JSON.parse(readFileSync(path.join(histories, file), 'utf8'))),
    }));
    // One replay worker for them all; each history has its own result.
    const results = [];
    for await (const result of Worker.runReplayHistories({ workflowBundle: bundle, sinks }, recorded))
      results.push(result);
    expect(results).toEqual(files.map((file) => ({ workflowId: file, runId: expect.any(String) })));
  });
});

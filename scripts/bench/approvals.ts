/**
 * `npm run bench -- approvals`: durable approvals and executions at volume, on one worker.
 *
 * Opens 10,000 pending approvals over HTTP (each its own workflow, waiting on a durable timer and its
 * Updates), holds them all open and reads the worker's memory, then answers every one; then runs agent
 * executions against a local agent endpoint. Reports the start rate, the time from the respond call to the
 * workflow's recorded decision (the respond Update answers once the decision is in the ledger and the read
 * model), worker RSS with every wait open, and execution throughput end to end. The worker keeps every open
 * approval in its cache (TEMPORAL_WORKER_MAX_CACHED_WORKFLOWS, with the heap to hold them), so an answer
 * never waits for a replay. Writes bench-results/approvals.json.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { cpus } from 'node:os';
import path from 'node:path';
import { percentile, runClosedLoop, summarize, type LoadFigures, type LoadRun, type Send } from './load';
import { procStatusKb, ProcessMeter } from './processes';
import { fixed, toMiB, writeResults } from './report';
import { onTearDown, runSuite, say, settle, startBenchStack, unlessAServiceDies, waitUntil, watchedBy } from './stack';

const APPROVALS = Number(process.env.HANDOFF_BENCH_APPROVALS ?? 10_000);
const EXECUTIONS = Number(process.env.HANDOFF_BENCH_EXECUTIONS ?? 2_000);
const WARM_UP = 200;
const CONCURRENCY = 32;
const TASK_QUEUE = 'bench-approvals';
/** Room for every open approval and the warm-up, so no answer waits for a replay. */
const WORKER_CACHE = APPROVALS + 2 * WARM_UP + 1000;
const WORKER_HEAP_MB = 4096;
/** Between phases: quiet once the services use under 5 % of a core over half a second. */
const SETTLE = { windowMs: 500, busyFraction: 0.05, timeoutMs: 60_000 };
const RESULTS_FILE = path.resolve(__dirname, '..', '..', 'bench-results', 'approvals.json');
const AGENT_URI = 'agent://default/echo@1.0.0';

const round1 = (value: number) => Math.round(value * 10) / 10;

function figures(run: LoadRun): Omit<LoadFigures, 'errorSamples'> & { errorSamples: string[] } {
  return summarize([run]);
}

/** A local agent: answers every call at once with a small result. */
async function startEchoAgent(): Promise<string> {
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const call = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { execution_id: string; attempt: number };
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ echoed: call.execution_id, attempt: call.attempt }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  onTearDown(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/run`;
}

function jsonPost(baseUrl: string, token: string) {
  const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
  return async (
    pathName: string,
    body: unknown,
    expected: number,
  ): Promise<{ ok: true; body: Record<string, unknown> } | { ok: false; error: string }> => {
    const response = await fetch(`${baseUrl}${pathName}`, { method: 'POST', headers, body: JSON.stringify(body) });
    const text = await response.text();
    if (response.status !== expected)
      return { ok: false, error: `${pathName}: HTTP ${response.status}: ${text.slice(0, 300)}` };
    return { ok: true, body: JSON.parse(text) as Record<string, unknown> };
  };
}

async function main(): Promise<void> {
  const { client, database, baseUrl, token, stack, signIn } = await startBenchStack({
    taskQueue: TASK_QUEUE,
    env: { RATE_LIMIT_DEFAULT: '100000000', OUTBOUND_PRIVATE_ALLOWLIST: '127.0.0.1' },
    workerEnv: {
      TEMPORAL_WORKER_MAX_CACHED_WORKFLOWS: String(WORKER_CACHE),
      NODE_OPTIONS: `--max-old-space-size=${WORKER_HEAP_MB}`,
    },
  });
  const { api, worker } = stack;
  const servicePids = [api.pid, worker.pid, ...stack.temporalPids];
  const post = jsonPost(baseUrl, token);
  // Only the approver a request names answers it, signed in.
  const APPROVER = 'did:web:bench.example:people:approver';
  const postAsApprover = jsonPost(baseUrl, await signIn(APPROVER));
  const guarded = <T>(work: Promise<T>) => unlessAServiceDies(work, [api, worker]);
  const countWhere = async (table: string, where: Record<string, string>) => {
    const [row] = await database.db(table).where(where).count<{ count: number }[]>({ count: '*' });
    return row?.count ?? 0;
  };

  const ids: string[] = [];
  const open: Send = async (index) => {
    const reply = await post(
      '/v1/approvals',
      {
        requester_passport_id: 'did:web:bench.example:agents:requester',
        approver_passport_id: APPROVER,
        action_description: `bench approval ${index}`,
        request_data: { amount: 500 + index },
        expires_in_seconds: 4 * 3600,
      },
      201,
    );
    if (!reply.ok) return reply;
    ids[index] = reply.body.id as string;
    return { ok: true };
  };
  const answer: Send = async (index) => {
    const reply = await postAsApprover(
      `/v1/approvals/${ids[index]!}/respond`,
      { decision: 'approved', responded_by: APPROVER },
      200,
    );
    if (!reply.ok) return reply;
    return reply.body.status === 'approved'
      ? { ok: true }
      : { ok: false, error: `answered ${String(reply.body.status)}` };
  };

  say(`Warm-up: ${WARM_UP} approvals opened and answered…`);
  await guarded(runClosedLoop({ count: WARM_UP, concurrency: CONCURRENCY, send: open }));
  await guarded(runClosedLoop({ count: WARM_UP, concurrency: CONCURRENCY, send: answer }));
  ids.length = 0;
  await settle(servicePids, SETTLE);

  say(`Opening ${APPROVALS} approvals at concurrency ${CONCURRENCY}…`);
  const openMeter = new ProcessMeter(watchedBy(stack));
  const opened = figures(
    await openMeter.measure(() => guarded(runClosedLoop({ count: APPROVALS, concurrency: CONCURRENCY, send: open }))),
  );
  say(
    `  ${opened.throughputPerSecond.toFixed(0)} approvals/s, p99 ${opened.p99Ms.toFixed(0)} ms, ${opened.errors} errors`,
  );
  await settle(servicePids, SETTLE);
  const pendingRows = await countWhere('approvals', { status: 'pending' });
  const { count: runningWorkflows } = await client.workflow.count(
    `WorkflowType = "approvalWorkflow" AND ExecutionStatus = "Running"`,
  );
  const heldRssMiB = toMiB(procStatusKb(worker.pid, 'VmRSS'));
  say(
    `  holding ${runningWorkflows} open approval workflows (${pendingRows} pending in the read model); worker RSS ${fixed(heldRssMiB, 0)} MiB`,
  );

  say(`Answering all ${APPROVALS} at concurrency ${CONCURRENCY}…`);
  const answerMeter = new ProcessMeter(watchedBy(stack));
  const answered = figures(
    await answerMeter.measure(() =>
      guarded(runClosedLoop({ count: APPROVALS, concurrency: CONCURRENCY, send: answer })),
    ),
  );
  say(
    `  ${answered.throughputPerSecond.toFixed(0)} answers/s, p50 ${answered.p50Ms.toFixed(0)} ms, p99 ${answered.p99Ms.toFixed(0)} ms, ${answered.errors} errors`,
  );
  await settle(servicePids, SETTLE);
  const approvedRows = await countWhere('approvals', { status: 'approved' });

  say(`Executions: ${EXECUTIONS} agent calls against a local agent endpoint, at concurrency ${CONCURRENCY}…`);
  const endpoint = await startEchoAgent();
  const registered = await post(
    '/v1/agents',
    {
      agent_uri: AGENT_URI,
      endpoint_url: endpoint,
      capabilities: ['capability://bench/echo'],
      approval_policy: { require_approval_at: 'never' },
    },
    201,
  );
  if (!registered.ok) throw new Error(registered.error);
  const callAgent: Send = async (index) => {
    const reply = await post(
      '/v1/agents/call',
      {
        agentUri: AGENT_URI,
        capabilityUri: 'capability://bench/echo',
        passport: 'did:web:bench.example:people:caller',
        parameters: { index },
      },
      202,
    );
    return reply.ok ? { ok: true } : reply;
  };
  const completed = () => countWhere('executions', { status: 'completed' });
  await guarded(runClosedLoop({ count: WARM_UP, concurrency: CONCURRENCY, send: callAgent }));
  await waitUntil('The warm-up executions', async () => (await completed()) === WARM_UP, 120_000);
  await settle(servicePids, SETTLE);
  const executionMeter = new ProcessMeter(watchedBy(stack));
  const started = performance.now();
  const { accepted, drainedSeconds } = await executionMeter.measure(async () => {
    const run = await guarded(
      runClosedLoop({ count: EXECUTIONS, concurrency: CONCURRENCY, send: callAgent, firstIndex: WARM_UP }),
    );
    await waitUntil('The executions', async () => (await completed()) >= WARM_UP + EXECUTIONS - run.errors, 600_000);
    return { accepted: figures(run), drainedSeconds: (performance.now() - started) / 1000 };
  });
  const { rows: durations } = await database.db.raw<{ rows: Array<{ ms: number }> }>(
    "select extract(epoch from completed_at - queued_at) * 1000 as ms from executions where status = 'completed' order by queued_at offset ?",
    [WARM_UP],
  );
  const endToEnd = durations.map((row) => row.ms).sort((a, b) => a - b);
  say(
    `  ${(EXECUTIONS / drainedSeconds).toFixed(0)} executions/s end to end, call→completed p50 ${percentile(endToEnd, 50).toFixed(0)} ms, p99 ${percentile(endToEnd, 99).toFixed(0)} ms`,
  );

  const usage = (meter: ProcessMeter, count: number) => {
    const { peakRssKb, cpuSeconds: cpu, machineBusyPercent } = meter.usage();
    const perItem = (seconds: number | undefined) => (seconds === undefined ? null : round1((seconds * 1000) / count));
    return {
      peakRssMiB: { api: toMiB(peakRssKb.api), worker: toMiB(peakRssKb.worker) },
      cpuMsPerItem: {
        api: perItem(cpu.api),
        worker: perItem(cpu.worker),
        temporal: perItem(cpu.temporal),
        postgres: perItem(cpu.postgres),
        loadGenerator: perItem(cpu.loadGenerator),
      },
      machineCpuBusyPercent: machineBusyPercent ?? null,
    };
  };
  const results = {
    generatedAt: new Date().toISOString(),
    machine: { cpus: cpus().length, node: process.version, database: database.kind },
    settings: {
      approvals: APPROVALS,
      executions: EXECUTIONS,
      concurrency: CONCURRENCY,
      warmUp: WARM_UP,
      workerMaxCachedWorkflows: WORKER_CACHE,
      workerHeapMiB: WORKER_HEAP_MB,
      stickyQueue: true,
    },
    open: { ...opened, startRatePerSecond: opened.throughputPerSecond, ...usage(openMeter, APPROVALS) },
    held: { openApprovalWorkflows: runningWorkflows, pendingInReadModel: pendingRows, workerRssMiB: heldRssMiB },
    answer: {
      ...answered,
      respondToRecordedDecisionMs: { p50: answered.p50Ms, p99: answered.p99Ms },
      approvedInReadModel: approvedRows - WARM_UP,
      ...usage(answerMeter, APPROVALS),
    },
    executions: {
      count: EXECUTIONS,
      accept: accepted,
      throughputPerSecond: EXECUTIONS / drainedSeconds,
      callToCompletedMs: { p50: percentile(endToEnd, 50), p99: percentile(endToEnd, 99), max: endToEnd.at(-1) ?? null },
      ...usage(executionMeter, EXECUTIONS),
    },
    peakRssWholeRunMiB: {
      api: toMiB(procStatusKb(api.pid, 'VmHWM')),
      worker: toMiB(procStatusKb(worker.pid, 'VmHWM')),
    },
  };

  const rows: Array<[string, string]> = [
    ['approvals opened (errors)', `${opened.requests} (${opened.errors})`],
    ['start rate', `${opened.throughputPerSecond.toFixed(1)} approvals/s`],
    ['create latency p50 / p99', `${opened.p50Ms.toFixed(1)} / ${opened.p99Ms.toFixed(1)} ms`],
    ['open approval workflows held', `${runningWorkflows} (read model: ${pendingRows} pending)`],
    [
      'worker RSS with all waits open',
      `${fixed(heldRssMiB, 0)} MiB (cache ${WORKER_CACHE} workflows, heap ${WORKER_HEAP_MB} MiB)`,
    ],
    [
      'answers (errors)',
      `${answered.requests} (${answered.errors}); ${approvedRows - WARM_UP} of them approved in the read model`,
    ],
    ['respond → recorded decision p50 / p99', `${answered.p50Ms.toFixed(1)} / ${answered.p99Ms.toFixed(1)} ms`],
    ['answer throughput', `${answered.throughputPerSecond.toFixed(1)} answers/s`],
    ['executions (accept errors)', `${EXECUTIONS} (${accepted.errors})`],
    ['execution accept p50 / p99', `${accepted.p50Ms.toFixed(1)} / ${accepted.p99Ms.toFixed(1)} ms`],
    ['execution throughput, end to end', `${(EXECUTIONS / drainedSeconds).toFixed(1)} executions/s`],
    [
      'call → completed p50 / p99',
      `${percentile(endToEnd, 50).toFixed(1)} / ${percentile(endToEnd, 99).toFixed(1)} ms`,
    ],
    ['worker peak RSS (whole run)', `${fixed(results.peakRssWholeRunMiB.worker, 0)} MiB`],
    [
      'machine CPU busy (open / answer / executions)',
      `${[results.open, results.answer, results.executions].map((phase) => phase.machineCpuBusyPercent?.toFixed(0) ?? 'n/a').join(' / ')} %`,
    ],
  ];
  const width = Math.max(...rows.map(([label]) => label.length));
  say('');
  for (const [label, value] of rows) say(`${label.padEnd(width)}   ${value}`);
  say('');
  say(
    `${cpus().length} CPUs, Node ${process.version}, ${database.kind === 'postgres' ? 'local Postgres server' : 'embedded Postgres'}; one API and one worker process.`,
  );
  for (const phase of [opened, answered, accepted]) for (const sample of phase.errorSamples) say(`  error: ${sample}`);
  writeResults(results, RESULTS_FILE);
  if (opened.errors + answered.errors + accepted.errors > 0 || approvedRows !== APPROVALS + WARM_UP)
    process.exitCode = 1;
}

runSuite(main);

/**
 * `npm run bench -- hot-paths`: the three hot paths against Temporal's plain-start floor on the same server
 * and against the peer users compare with (LangGraph.js interrupt and resume with its Postgres
 * checkpointer, on the same Postgres): in this process, and as a user deploys it, behind a node:http server
 * process that checks an EdDSA JWT on every request (./langgraph/), all in one run.
 *
 * After a warm-up, each of: plain start of a workflow (the floor), POST /v1/orch/routing, POST /v1/approvals
 * (open), POST /v1/approvals/{id}/respond (answer), LangGraph invoke to its interrupt (open) and resume
 * (answer), in process and over HTTP, at concurrency 1 (200 requests) and 32 (1,000), with the CPU each
 * process (API, worker, Temporal, Postgres, the peer's server, this load generator) spent per operation. Then 10,000 approvals held open on one worker
 * with the default workflow cache: the worker's RSS once it has caught up with the opens (and its peak while
 * it caught up), and answers to them at concurrency 32 and 1. A few approvals expire meanwhile. At the end
 * it counts every routing, opened, answered and expired record in Postgres and the ledger and fails when
 * one is missing or doubled, or a target is missed. Writes bench-results/hot-paths.json.
 */
import { randomBytes } from 'node:crypto';
import { cpus } from 'node:os';
import path from 'node:path';
import type { Client } from '@temporalio/client';
import { BENCH_FLOOR_WORKFLOW, type BenchFloorWorkflow } from './floor/contract';
import { runClosedLoop, summarize, type LoadFigures, type Send } from './load';
import { httpPeer, inProcessPeer, PEER_APPLICATION_NAME } from './langgraph/peers';
import { procStatusKb, ProcessMeter } from './processes';
import { serviceBackendPids } from './database';
import { fixed, toMiB, writeResults } from './report';
import { runSuite, say, settle, sleep, startBenchStack, unlessAServiceDies, waitUntil } from './stack';

const SERIAL = { count: Number(process.env.HANDOFF_BENCH_SERIAL ?? 200), concurrency: 1 };
const PARALLEL = { count: Number(process.env.HANDOFF_BENCH_PARALLEL ?? 1000), concurrency: 32 };
const HELD = Number(process.env.HANDOFF_BENCH_HELD ?? 10_000);
const EXPIRING = 100;
const WARM_UP = 200;
const TASK_QUEUE = 'bench-hot-paths';
const SETTLE = { windowMs: 500, busyFraction: 0.05, timeoutMs: 60_000 };
/** After the held opens: the backlog they leave the worker takes minutes on two cores. */
const CATCH_UP = { ...SETTLE, timeoutMs: 600_000 };
const RESULTS_FILE = path.resolve(__dirname, '..', '..', 'bench-results', 'hot-paths.json');
/** The worker process with the floor workflow in its bundle beside the production ones. */
const FLOOR_WORKER = path.join(__dirname, 'floor', 'worker.ts');
const WORKER_RSS_LIMIT_MIB = 500;
const IDLE_READ_AFTER_MS = 30_000;
const APPROVER = 'did:web:bench.example:people:approver';

type Shape = typeof SERIAL;
/** CPU milliseconds per operation, by process. */
type CpuPerOperation = Record<string, number | undefined>;
type Figures = Omit<LoadFigures, 'errorSamples'> & { errorSamples: string[]; cpuMsPerOperation: CpuPerOperation };

const ROUTING_CASES = [
  {
    expected: 'escalate_to_human',
    body: JSON.stringify({
      task_type: 'bench_review',
      ai_agent_id: 'urn:bench:agent:1',
      ai_confidence: 0.5,
      required_capabilities: [{ capability_id: 'general_review', min_weight: 0.5 }],
    }),
  },
  {
    expected: 'ai_autonomous',
    body: JSON.stringify({ task_type: 'bench_summarize', ai_agent_id: 'urn:bench:agent:1', ai_confidence: 0.95 }),
  },
] as const;

function http(baseUrl: string, token: string) {
  const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
  return async (
    pathName: string,
    body: string,
    expected: number,
  ): Promise<{ ok: true; body: Record<string, unknown> } | { ok: false; error: string }> => {
    const response = await fetch(`${baseUrl}${pathName}`, { method: 'POST', headers, body });
    const text = await response.text();
    if (response.status !== expected)
      return { ok: false, error: `${pathName}: HTTP ${response.status}: ${text.slice(0, 300)}` };
    return { ok: true, body: JSON.parse(text) as Record<string, unknown> };
  };
}

function floorStart(client: Client): Send {
  const prefix = `floor-${randomBytes(4).toString('hex')}`;
  return async (index) => {
    // It ends a moment after its start, as an autonomous routing does, so the worker holds none of them.
    await client.workflow.start<BenchFloorWorkflow>(BENCH_FLOOR_WORKFLOW, {
      workflowId: `${prefix}-${index}`,
      taskQueue: TASK_QUEUE,
      args: [{ answerWithinMs: 1 }],
    });
    return { ok: true };
  };
}

async function main(): Promise<void> {
  const { client, database, baseUrl, token, stack, signIn } = await startBenchStack({
    taskQueue: TASK_QUEUE,
    env: { RATE_LIMIT_DEFAULT: '100000000', RATE_LIMIT_ROUTING_REQUESTS: '100000000' },
    workerEntry: FLOOR_WORKER,
  });
  const { api, worker } = stack;
  const pids = [api.pid, worker.pid, ...stack.temporalPids];
  const post = http(baseUrl, token);
  // Only a signed-in person answers; the approvals are addressed to this one.
  const postAsApprover = http(baseUrl, await signIn(APPROVER));
  const peer = await inProcessPeer(database.url);
  const peerOverHttp = await httpPeer(database.url);
  const cpuGroups = {
    api: () => [api.pid],
    worker: () => [worker.pid],
    temporal: () => stack.temporalPids,
    postgres: () => serviceBackendPids(database),
    langGraphServer: () => [peerOverHttp.service.pid],
    postgresOfLangGraphServer: async () =>
      (
        await database.db.raw<{ rows: { pid: number }[] }>(
          'select pid from pg_stat_activity where datname = current_database() and application_name = ?',
          [PEER_APPLICATION_NAME],
        )
      ).rows.map((row) => row.pid),
    loadGenerator: () => [process.pid],
  };

  const approvalIds: string[] = [];
  let answeredOk = 0;
  const openApproval =
    (expiresInSeconds: number, ids: string[]): Send =>
    async (index) => {
      const body = JSON.stringify({
        requester_passport_id: 'did:web:bench.example:agents:requester',
        approver_passport_id: APPROVER,
        action_description: `bench approval ${index}`,
        request_data: { amount: 500 + index },
        expires_in_seconds: expiresInSeconds,
      });
      const reply = await post('/v1/approvals', body, 201);
      if (!reply.ok) return reply;
      ids[index] = reply.body.id as string;
      return { ok: true };
    };
  const answerApproval =
    (ids: string[]): Send =>
    async (index) => {
      const reply = await postAsApprover(
        `/v1/approvals/${ids[index]!}/respond`,
        JSON.stringify({ decision: 'approved', responded_by: APPROVER }),
        200,
      );
      if (!reply.ok) return reply;
      if (reply.body.status !== 'approved') return { ok: false, error: `answered ${String(reply.body.status)}` };
      answeredOk += 1;
      return { ok: true };
    };
  let routed = 0;
  const route: Send = async (index) => {
    const { expected, body } = ROUTING_CASES[index % ROUTING_CASES.length]!;
    const reply = await post('/v1/orch/routing', body, 200);
    if (!reply.ok) return reply;
    routed += 1;
    return reply.body.decision === expected
      ? { ok: true }
      : { ok: false, error: `decision ${String(reply.body.decision)}, expected ${expected}` };
  };

  const run = async (label: string, shape: Shape, send: Send, firstIndex = 0): Promise<Figures> => {
    await settle(pids, SETTLE);
    const meter = new ProcessMeter({ memory: {}, cpu: cpuGroups });
    const loaded = summarize([
      await meter.measure(() => unlessAServiceDies(runClosedLoop({ ...shape, send, firstIndex }), [api, worker])),
    ]);
    const { cpuSeconds } = meter.usage();
    const cpuMsPerOperation = Object.fromEntries(
      Object.entries(cpuSeconds).map(([name, used]) => [
        name,
        used === undefined ? undefined : (1000 * used) / shape.count,
      ]),
    );
    const figures = { ...loaded, cpuMsPerOperation };
    const cpu = Object.entries(cpuMsPerOperation)
      .filter(([, ms]) => ms !== undefined && ms >= 0.05)
      .map(([name, ms]) => `${name} ${fixed(ms!, 2)}`)
      .join(', ');
    say(
      `  ${label.padEnd(34)} c=${String(shape.concurrency).padStart(2)}: p50 ${figures.p50Ms.toFixed(1)} ms, p99 ${figures.p99Ms.toFixed(1)} ms, ${figures.throughputPerSecond.toFixed(1)}/s, ${figures.errors} errors; CPU ms/op: ${cpu}`,
    );
    for (const sample of figures.errorSamples) say(`    error: ${sample}`);
    return figures;
  };

  say(`Warm-up: ${WARM_UP} of each…`);
  const warm = { count: WARM_UP, concurrency: 8 };
  await run('plain start (floor)', warm, floorStart(client));
  await run('routing', warm, route);
  const warmIds: string[] = [];
  await run('open approval', warm, openApproval(4 * 3600, warmIds));
  await run('answer approval', warm, answerApproval(warmIds));
  await run('LangGraph interrupt', warm, peer.open);
  await run('LangGraph resume', warm, peer.answer);
  await run('LangGraph over HTTP interrupt', warm, peerOverHttp.open);
  await run('LangGraph over HTTP resume', warm, peerOverHttp.answer);

  const measured: Record<string, Record<'c1' | 'c32', Figures>> = {};
  for (const [key, shape] of [
    ['c1', SERIAL],
    ['c32', PARALLEL],
  ] as const) {
    say(`Measuring at concurrency ${shape.concurrency}, ${shape.count} of each…`);
    const ids: string[] = [];
    const lgFirst = WARM_UP + (key === 'c1' ? 0 : SERIAL.count);
    const figures = {
      floor: await run('plain start (floor)', shape, floorStart(client)),
      routing: await run('routing', shape, route),
      open: await run('open approval', shape, openApproval(4 * 3600, ids)),
      answer: await run('answer approval', shape, answerApproval(ids)),
      langGraphInterrupt: await run('LangGraph interrupt', shape, peer.open, lgFirst),
      langGraphResume: await run('LangGraph resume', shape, peer.answer, lgFirst),
      langGraphHttpInterrupt: await run('LangGraph over HTTP interrupt', shape, peerOverHttp.open, lgFirst),
      langGraphHttpResume: await run('LangGraph over HTTP resume', shape, peerOverHttp.answer, lgFirst),
    };
    approvalIds.push(...ids);
    for (const [name, value] of Object.entries(figures))
      (measured[name] ??= {} as Record<'c1' | 'c32', Figures>)[key] = value;
  }

  await settle(pids, SETTLE);
  const baselineRssMiB = toMiB(procStatusKb(worker.pid, 'VmRSS'));
  say(
    `Holding ${HELD} approvals open (default worker cache; worker RSS before: ${fixed(baselineRssMiB, 0)} MiB), ${EXPIRING} expiring within seconds…`,
  );
  const expiringIds: string[] = [];
  await run('open expiring approval', { count: EXPIRING, concurrency: 32 }, openApproval(3, expiringIds));
  const heldIds: string[] = [];
  const heldOpen = await run('open approval (held)', { count: HELD, concurrency: 32 }, openApproval(4 * 3600, heldIds));
  // The opens outrun the worker: it runs the first workflow tasks of the last thousands after the opens end.
  // What a waiting approval costs is read once it has caught up; its peak while catching up is reported beside it.
  const catchUpStartedAt = Date.now();
  let catchUpPeakKb: number | undefined;
  const sampler = setInterval(() => {
    const kb = procStatusKb(worker.pid, 'VmRSS');
    if (kb !== undefined) catchUpPeakKb = Math.max(kb, catchUpPeakKb ?? 0);
  }, 200);
  await settle(pids, CATCH_UP).finally(() => clearInterval(sampler));
  const caughtUpWithinSeconds = (Date.now() - catchUpStartedAt) / 1000;
  const catchUpPeakRssMiB = toMiB(catchUpPeakKb);
  const heldRssMiB = toMiB(procStatusKb(worker.pid, 'VmRSS'));
  say(
    `  the worker caught up with the opens ${caughtUpWithinSeconds.toFixed(0)} s after the last (its RSS meanwhile peaked at ${fixed(catchUpPeakRssMiB, 0)} MiB)`,
  );
  say(`  worker RSS with ${HELD} approvals open: ${fixed(heldRssMiB, 0)} MiB`);
  // V8 gives memory back once its isolate has been idle a while; this says how much of the figure above is that.
  await sleep(IDLE_READ_AFTER_MS);
  const heldIdleRssMiB = toMiB(procStatusKb(worker.pid, 'VmRSS'));
  say(`  and ${IDLE_READ_AFTER_MS / 1000} s later, with nothing asked of it: ${fixed(heldIdleRssMiB, 0)} MiB`);
  const heldAnswerSerial = await run('answer approval (held)', SERIAL, answerApproval(heldIds));
  const heldAnswerParallel = await run(
    'answer approval (held)',
    { count: HELD - SERIAL.count, concurrency: 32 },
    answerApproval(heldIds),
    SERIAL.count,
  );
  approvalIds.push(...heldIds);

  say('Counting every record…');
  const count = async (sql: string) =>
    Number((await database.db.raw<{ rows: Array<{ n: string | number }> }>(sql)).rows[0]?.n ?? 0);
  await waitUntil(
    'The expiring approvals',
    async () => (await count("select count(*) as n from approvals where status = 'expired'")) === EXPIRING,
    300_000,
  );
  // An answer is the person's at its claim; its workflow carries it on after. How long the last of them took
  // to close after the last answer is the backlog the answers left.
  const drainStartedAt = Date.now();
  await waitUntil(
    'The answered approval workflows',
    async () =>
      (await client.workflow.count('WorkflowType = "approvalWorkflow" AND ExecutionStatus = "Running"')).count === 0,
    900_000,
  );
  const carriedOnWithinSeconds = (Date.now() - drainStartedAt) / 1000;
  say(`  every answered approval's workflow closed ${carriedOnWithinSeconds.toFixed(0)} s after the last answer`);
  const opened = approvalIds.length + warmIds.length + expiringIds.length;
  const counts = {
    approvalsOpened: opened,
    approvalRows: await count("select count(*) as n from approvals where approval_id like 'apr_%'"),
    approved: await count("select count(*) as n from approvals where status = 'approved'"),
    answeredOk,
    expired: await count("select count(*) as n from approvals where status = 'expired'"),
    pending: await count("select count(*) as n from approvals where status = 'pending'"),
    requestedRecords: await count(
      "select count(*) as n from ledger_entries where subject_id like 'apr_%' and step_id = 'requested'",
    ),
    endingRecords: await count(
      "select count(*) as n from ledger_entries where subject_id like 'apr_%' and step_id in ('responded', 'expired', 'cancelled')",
    ),
    approvalsEndedTwice: await count(
      "select count(*) as n from (select subject_id from ledger_entries where subject_id like 'apr_%' and step_id in ('responded', 'expired', 'cancelled') group by subject_id having count(*) > 1) twice",
    ),
    routed,
    routingRows: await count('select count(*) as n from routings'),
    routingDecisionRecords: await count(
      "select count(*) as n from ledger_entries where subject_id like 'rt_%' and step_id = 'routing_decision'",
    ),
    pendingStarts: await count('select count(*) as n from workflow_starts'),
    pendingSignals: await count('select count(*) as n from workflow_signals'),
  };
  const countsHold =
    counts.approvalRows === opened &&
    counts.approved === answeredOk &&
    counts.expired === EXPIRING &&
    counts.pending === 0 &&
    counts.requestedRecords === opened &&
    counts.endingRecords === opened &&
    counts.approvalsEndedTwice === 0 &&
    counts.routingRows === routed &&
    counts.routingDecisionRecords === routed &&
    counts.pendingStarts === 0 &&
    counts.pendingSignals === 0;

  const m = (name: string) => measured[name]!;
  const peerOpen = m('langGraphHttpInterrupt');
  const peerAnswer = m('langGraphHttpResume');
  const ratios = {
    routingC32ThroughputOverFloor: m('routing').c32.throughputPerSecond / m('floor').c32.throughputPerSecond,
    openC32ThroughputOverPeer: m('open').c32.throughputPerSecond / peerOpen.c32.throughputPerSecond,
    openC32P99OverPeer: m('open').c32.p99Ms / peerOpen.c32.p99Ms,
    answerC32ThroughputOverPeer: m('answer').c32.throughputPerSecond / peerAnswer.c32.throughputPerSecond,
    answerC32P99OverPeer: m('answer').c32.p99Ms / peerAnswer.c32.p99Ms,
  };
  const apiCpuPerRouting = m('routing').c32.cpuMsPerOperation.api;
  const targets = {
    'routing c=1 p50 ≤ 10 ms': m('routing').c1.p50Ms <= 10,
    'open c=1 p50 ≤ 10 ms': m('open').c1.p50Ms <= 10,
    'answer c=1 p50 ≤ LangGraph-over-HTTP resume c=1 p50': m('answer').c1.p50Ms <= peerAnswer.c1.p50Ms,
    'routing c=32 throughput ≥ 0.6× floor': ratios.routingC32ThroughputOverFloor >= 0.6,
    'open c=32: rate ≥ and p99 ≤ LangGraph-over-HTTP interrupt':
      ratios.openC32ThroughputOverPeer >= 1 && ratios.openC32P99OverPeer <= 1,
    'answer c=32: rate ≥ and p99 ≤ LangGraph-over-HTTP resume':
      ratios.answerC32ThroughputOverPeer >= 1 && ratios.answerC32P99OverPeer <= 1,
    'API CPU per routing (c=32) ≤ 3 ms': apiCpuPerRouting !== undefined && apiCpuPerRouting <= 3,
    [`worker RSS with ${HELD} open < ${WORKER_RSS_LIMIT_MIB} MiB`]:
      heldRssMiB !== null && heldRssMiB < WORKER_RSS_LIMIT_MIB,
    [`answers with ${HELD} open: c=1 p50 ≤ LangGraph-over-HTTP resume c=1 p50`]:
      heldAnswerSerial.p50Ms <= peerAnswer.c1.p50Ms,
    [`answers with ${HELD} open: c=32 p99 ≤ LangGraph-over-HTTP resume c=32 p99`]:
      heldAnswerParallel.p99Ms <= peerAnswer.c32.p99Ms,
    'nothing lost or decided twice': countsHold,
  };

  say('');
  say(
    `${'path'.padEnd(22)} ${'c=1 p50'.padStart(9)} ${'c=1 p99'.padStart(9)} ${'c=32 /s'.padStart(9)} ${'c=32 p50'.padStart(9)} ${'c=32 p99'.padStart(9)}`,
  );
  for (const [name, figures] of Object.entries(measured)) {
    say(
      `${name.padEnd(22)} ${fixed(figures.c1.p50Ms).padStart(9)} ${fixed(figures.c1.p99Ms).padStart(9)} ${fixed(figures.c32.throughputPerSecond).padStart(9)} ${fixed(figures.c32.p50Ms).padStart(9)} ${fixed(figures.c32.p99Ms).padStart(9)}`,
    );
  }
  say('CPU ms per operation at c=32, by process:');
  for (const [name, figures] of Object.entries(measured)) {
    const byProcess = Object.entries(figures.c32.cpuMsPerOperation)
      .map(([process, ms]) => `${process} ${fixed(ms ?? null, 2)}`)
      .join(', ');
    say(`  ${name.padEnd(22)} ${byProcess}`);
  }
  say(
    `held ${HELD}: open ${fixed(heldOpen.throughputPerSecond)}/s; worker caught up after ${fixed(caughtUpWithinSeconds, 0)} s (RSS peak ${fixed(catchUpPeakRssMiB, 0)} MiB); worker RSS ${fixed(heldRssMiB, 0)} MiB (${fixed(heldIdleRssMiB, 0)} MiB after ${IDLE_READ_AFTER_MS / 1000} s idle); answers c=1 p50 ${fixed(heldAnswerSerial.p50Ms)} ms, c=32 p99 ${fixed(heldAnswerParallel.p99Ms)} ms (${fixed(heldAnswerParallel.throughputPerSecond)}/s)`,
  );
  say(
    `ratios: ${Object.entries(ratios)
      .map(([name, value]) => `${name} ${value.toFixed(2)}`)
      .join(', ')}`,
  );
  say(`counts: ${JSON.stringify(counts)}`);
  for (const [target, met] of Object.entries(targets)) say(`  ${met ? 'met   ' : 'MISSED'} ${target}`);
  say(
    `${cpus().length} CPUs, Node ${process.version}, ${database.kind === 'postgres' ? 'local Postgres server' : 'embedded Postgres'}; one API and one worker process, the LangGraph peer's server process; Temporal dev server in memory; the machine may be shared with other work: compare the ratios of one run.`,
  );

  writeResults(
    {
      generatedAt: new Date().toISOString(),
      machine: { cpus: cpus().length, node: process.version, database: database.kind },
      settings: { serial: SERIAL, parallel: PARALLEL, held: HELD, expiring: EXPIRING, warmUp: WARM_UP },
      measured,
      held: {
        open: heldOpen,
        workerRssBeforeMiB: baselineRssMiB,
        caughtUpWithinSeconds,
        workerRssPeakWhileCatchingUpMiB: catchUpPeakRssMiB,
        workerRssMiB: heldRssMiB,
        workerRssIdleMiB: heldIdleRssMiB,
        answerSerial: heldAnswerSerial,
        answerParallel: heldAnswerParallel,
        carriedOnWithinSeconds,
      },
      ratios,
      targets,
      counts,
      peakRssWholeRunMiB: {
        api: toMiB(procStatusKb(api.pid, 'VmHWM')),
        worker: toMiB(procStatusKb(worker.pid, 'VmHWM')),
      },
    },
    RESULTS_FILE,
  );
  const errors = [
    ...Object.values(measured).flatMap((figures) => [figures.c1.errors, figures.c32.errors]),
    heldOpen.errors,
    heldAnswerSerial.errors,
    heldAnswerParallel.errors,
  ].reduce((a, b) => a + b, 0);
  if (errors > 0 || !countsHold) process.exitCode = 1;
}

runSuite(main);

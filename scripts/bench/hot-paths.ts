/**
 * `npm run bench -- hot-paths`: the three hot paths against Temporal's plain-start floor on the same server
 * and against the peer users compare with (LangGraph.js interrupt and resume with its Postgres
 * checkpointer, on the same Postgres): in this process, and as a user deploys it, behind a node:http server
 * process that checks an EdDSA JWT on every request (./langgraph/), all in one run.
 *
 * After a warm-up, each of: plain start of a workflow (the floor), POST /v1/orch/routing, POST /v1/approvals
 * (open), POST /v1/approvals/{id}/respond (answer), LangGraph invoke to its interrupt (open) and resume
 * (answer), in process and over HTTP, at concurrency 1 (200 requests) and 32 (1,000) and paced (one caller
 * waiting a quarter second between an answer and its next request, 40 requests), with the CPU each
 * process (API, worker, Temporal, Postgres, the peer's server, this load generator) spent per operation. Then 10,000 approvals held open on one worker
 * with the default workflow cache: the worker's RSS once it has caught up with the opens (and its peak while
 * it caught up), and answers to them at concurrency 32 and 1. A few approvals expire meanwhile. At the end
 * it counts every routing, opened, answered and expired record in Postgres and the ledger and fails when
 * one is missing or doubled, or a target is missed. Writes bench-results/hot-paths.json.
 */
import { cpus } from 'node:os';
import path from 'node:path';
import { runClosedLoop, summarize, type Send } from './load';
import { httpPeer, inProcessPeer, PEER_APPLICATION_NAME } from './langgraph/peers';
import { procStatusKb, ProcessMeter } from './processes';
import { serviceBackendPids } from './database';
import { fixed, toMiB, writeResults } from './report';
import { runSuite, say, settle, sleep, startBenchStack, unlessAServiceDies } from './stack';
import { approvalsDrained, countRecords, noPendingStartsOrSignals } from './hot-paths/records';
import { APPROVER, floorStart, hotPathRequests } from './hot-paths/requests';
import { describeStartLag, startLag } from './hot-paths/start-lag';
import { judgeHotPaths, printHotPaths, type Figures, type Held, type Measured } from './hot-paths/summary';

const SERIAL = { count: Number(process.env.HANDOFF_BENCH_SERIAL ?? 200), concurrency: 1 };
const PARALLEL = { count: Number(process.env.HANDOFF_BENCH_PARALLEL ?? 1000), concurrency: 32 };
/** One caller with a quarter second between an answer and its next request: what a lone agent feels. */
const PACED = { count: Number(process.env.HANDOFF_BENCH_PACED ?? 40), concurrency: 1, pauseMs: 250 };
const HELD = Number(process.env.HANDOFF_BENCH_HELD ?? 10_000);
if (!Number.isInteger(HELD) || HELD < 0 || HELD === 1)
  throw new Error(`HANDOFF_BENCH_HELD must be 0 (skip the held phase) or a whole number of at least 2, not ${HELD}`);
const EXPIRING = 100;
const WARM_UP = 200;
const TASK_QUEUE = 'bench-hot-paths';
const SETTLE = { windowMs: 500, busyFraction: 0.05, timeoutMs: 60_000 };
/** After the held opens: the backlog they leave the worker takes minutes on two cores. */
const CATCH_UP = { ...SETTLE, timeoutMs: 600_000 };
const RESULTS_FILE = path.resolve(__dirname, '..', '..', 'bench-results', 'hot-paths.json');
/** The worker process with the floor workflow in its bundle beside the production ones. */
const FLOOR_WORKER = path.join(__dirname, 'floor', 'worker.ts');
const IDLE_READ_AFTER_MS = 30_000;

type Shape = { count: number; concurrency: number; pauseMs?: number };
type Bench = Awaited<ReturnType<typeof startHotPaths>>;

async function startHotPaths() {
  const { client, database, baseUrl, token, stack, signIn } = await startBenchStack({
    taskQueue: TASK_QUEUE,
    env: { RATE_LIMIT_DEFAULT: '100000000', RATE_LIMIT_ROUTING_REQUESTS: '100000000' },
    workerEntry: FLOOR_WORKER,
  });
  const { api, worker } = stack;
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
  const pids = [api.pid, worker.pid, ...stack.temporalPids];
  /**
   * One measured closed-loop run, after the stack has settled, with the CPU each process spent per operation: up
   * to the last answer and on until the stack has settled again, so that the work made behind the answers (the
   * workflows' starts, signals and tasks, the sweep's share) is counted with the operations that asked for it.
   */
  const run = async (label: string, shape: Shape, send: Send, firstIndex = 0): Promise<Figures> => {
    await settle(pids, SETTLE);
    const meter = new ProcessMeter({ memory: {}, cpu: cpuGroups });
    let settledAfterSeconds = 0;
    const loaded = summarize([
      await meter.measure(async () => {
        const answered = await unlessAServiceDies(runClosedLoop({ ...shape, send, firstIndex }), [api, worker]);
        const lastAnswerAt = Date.now();
        await noPendingStartsOrSignals(database.db);
        await settle(pids, SETTLE);
        settledAfterSeconds = (Date.now() - lastAnswerAt) / 1000;
        return answered;
      }),
    ]);
    const cpuMsPerOperation = Object.fromEntries(
      Object.entries(meter.usage().cpuSeconds).map(([name, used]) => [
        name,
        used === undefined ? undefined : (1000 * used) / shape.count,
      ]),
    );
    const figures = { ...loaded, cpuMsPerOperation, settledAfterSeconds };
    const cpu = Object.entries(cpuMsPerOperation)
      .filter(([, ms]) => ms !== undefined && ms >= 0.05)
      .map(([name, ms]) => `${name} ${fixed(ms!, 2)}`)
      .join(', ');
    say(
      `  ${label.padEnd(34)} c=${String(shape.concurrency).padStart(2)}: p50 ${figures.p50Ms.toFixed(1)} ms, p99 ${figures.p99Ms.toFixed(1)} ms, ${figures.throughputPerSecond.toFixed(1)}/s, ${figures.errors} errors; settled ${fixed(settledAfterSeconds, 1)} s after; CPU ms/op: ${cpu}`,
    );
    for (const sample of figures.errorSamples) say(`    error: ${sample}`);
    return figures;
  };
  const requests = hotPathRequests(baseUrl, token, await signIn(APPROVER));
  return { client, database, api, worker, pids, peer, peerOverHttp, run, requests };
}

/** Each path and each peer, serially and at concurrency 32; the approval ids opened, to count at the end. */
async function measurePaths(bench: Bench, approvalIds: string[]): Promise<Measured> {
  const { client, peer, peerOverHttp, run, requests } = bench;
  say(`Warm-up: ${WARM_UP} of each…`);
  const warm = { count: WARM_UP, concurrency: 8 };
  await run('plain start (floor)', warm, floorStart(client, TASK_QUEUE));
  await run('routing', warm, requests.route);
  const warmIds: string[] = [];
  await run('open approval', warm, requests.openApproval(4 * 3600, warmIds));
  await run('answer approval', warm, requests.answerApproval(warmIds));
  approvalIds.push(...warmIds);
  for (const [label, send] of [
    ['LangGraph interrupt', peer.open],
    ['LangGraph resume', peer.answer],
    ['LangGraph over HTTP interrupt', peerOverHttp.open],
    ['LangGraph over HTTP resume', peerOverHttp.answer],
  ] as const)
    await run(label, warm, send);

  const measured: Measured = {};
  for (const [key, shape] of [
    ['c1', SERIAL],
    ['c32', PARALLEL],
    ['paced', PACED],
  ] as const) {
    say(
      `Measuring at concurrency ${shape.concurrency}, ${shape.count} of each${'pauseMs' in shape ? `, ${shape.pauseMs} ms between an answer and the next request` : ''}…`,
    );
    const ids: string[] = [];
    const lgFirst = WARM_UP + { c1: 0, c32: SERIAL.count, paced: SERIAL.count + PARALLEL.count }[key];
    const figures = {
      floor: await run('plain start (floor)', shape, floorStart(client, TASK_QUEUE)),
      routing: await withStartLag(bench, 'routing', () => run('routing', shape, requests.route)),
      open: await withStartLag(bench, 'open', () => run('open approval', shape, requests.openApproval(4 * 3600, ids))),
      answer: await run('answer approval', shape, requests.answerApproval(ids)),
      langGraphInterrupt: await run('LangGraph interrupt', shape, peer.open, lgFirst),
      langGraphResume: await run('LangGraph resume', shape, peer.answer, lgFirst),
      langGraphHttpInterrupt: await run('LangGraph over HTTP interrupt', shape, peerOverHttp.open, lgFirst),
      langGraphHttpResume: await run('LangGraph over HTTP resume', shape, peerOverHttp.answer, lgFirst),
    };
    approvalIds.push(...ids);
    for (const [name, value] of Object.entries(figures)) (measured[name] ??= {} as Measured[string])[key] = value;
  }
  for (const key of ['c1', 'c32', 'paced'] as const)
    for (const name of ['routing', 'open'] as const) {
      const figures = measured[name]![key];
      figures.startLag = await startLag(client, WORKFLOW_TYPES[name], figures.answeredAt!);
      delete figures.answeredAt;
      say(describeStartLag(`${name} ${key === 'paced' ? 'paced' : `c=${key.slice(1)}`}`, figures.startLag));
    }
  return measured;
}

const WORKFLOW_TYPES = { routing: 'routeTaskWorkflow', open: 'approvalWorkflow' } as const;

/**
 * A run of a path that starts a workflow behind its answer, with the answers' times kept to read the starts'
 * lag against once the runs are over (the sweep has made what the queue left by then).
 */
async function withStartLag(bench: Bench, name: keyof typeof WORKFLOW_TYPES, measure: () => Promise<Figures>) {
  const answeredAt = bench.requests.answeredAt[name];
  answeredAt.clear();
  const figures = await measure();
  return { ...figures, answeredAt: new Map(answeredAt) };
}

/** Opens HELD approvals (and a few expiring ones), reads the worker's memory, then answers them all. */
async function holdApprovals(bench: Bench, approvalIds: string[]): Promise<Held> {
  const { worker, pids, run, requests } = bench;
  await settle(pids, SETTLE);
  const workerRssBeforeMiB = toMiB(procStatusKb(worker.pid, 'VmRSS'));
  say(
    `Holding ${HELD} approvals open (default worker cache; worker RSS before: ${fixed(workerRssBeforeMiB, 0)} MiB), ${EXPIRING} expiring within seconds…`,
  );
  const expiringIds: string[] = [];
  await run('open expiring approval', { count: EXPIRING, concurrency: 32 }, requests.openApproval(3, expiringIds));
  const heldIds: string[] = [];
  const open = await run(
    'open approval (held)',
    { count: HELD, concurrency: 32 },
    requests.openApproval(4 * 3600, heldIds),
  );
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
  const workerRssPeakWhileCatchingUpMiB = toMiB(catchUpPeakKb);
  const workerRssMiB = toMiB(procStatusKb(worker.pid, 'VmRSS'));
  say(
    `  the worker caught up with the opens ${caughtUpWithinSeconds.toFixed(0)} s after the last (its RSS meanwhile peaked at ${fixed(workerRssPeakWhileCatchingUpMiB, 0)} MiB)`,
  );
  say(`  worker RSS with ${HELD} approvals open: ${fixed(workerRssMiB, 0)} MiB`);
  // V8 gives memory back once its isolate has been idle a while; this says how much of the figure above is that.
  await sleep(IDLE_READ_AFTER_MS);
  const workerRssIdleMiB = toMiB(procStatusKb(worker.pid, 'VmRSS'));
  say(`  and ${IDLE_READ_AFTER_MS / 1000} s later, with nothing asked of it: ${fixed(workerRssIdleMiB, 0)} MiB`);
  // At most half are answered serially, so that a small HELD still leaves some to answer at concurrency 32.
  const serialCount = Math.min(SERIAL.count, Math.floor(HELD / 2));
  const answerSerial = await run(
    'answer approval (held)',
    { ...SERIAL, count: serialCount },
    requests.answerApproval(heldIds),
  );
  const answerParallel = await run(
    'answer approval (held)',
    { count: HELD - serialCount, concurrency: 32 },
    requests.answerApproval(heldIds),
    serialCount,
  );
  approvalIds.push(...heldIds, ...expiringIds);
  const carriedOnWithinSeconds = await approvalsDrained(bench.client, bench.database.db, EXPIRING);
  return {
    count: HELD,
    open,
    workerRssBeforeMiB,
    caughtUpWithinSeconds,
    workerRssPeakWhileCatchingUpMiB,
    workerRssMiB,
    workerRssIdleMiB,
    idleReadAfterSeconds: IDLE_READ_AFTER_MS / 1000,
    answerSerial,
    answerParallel,
    carriedOnWithinSeconds,
  };
}

async function main(): Promise<void> {
  const bench = await startHotPaths();
  const approvalIds: string[] = [];
  const measured = await measurePaths(bench, approvalIds);
  // HANDOFF_BENCH_HELD=0 skips the held approvals (and the expiring ones opened with them).
  const held = HELD > 0 ? await holdApprovals(bench, approvalIds) : undefined;
  say('Counting every record…');
  const { counts, hold } = await countRecords(bench.database.db, {
    opened: approvalIds.length,
    answeredOk: bench.requests.tally.answeredOk,
    expiring: held ? EXPIRING : 0,
    routed: bench.requests.tally.routed,
  });
  const judged = judgeHotPaths(measured, held, hold);
  printHotPaths(measured, held, judged, counts, bench.database.kind);
  writeResults(
    {
      generatedAt: new Date().toISOString(),
      machine: { cpus: cpus().length, node: process.version, database: bench.database.kind },
      settings: { serial: SERIAL, parallel: PARALLEL, held: HELD, expiring: EXPIRING, warmUp: WARM_UP },
      measured,
      held,
      ...judged,
      counts,
      peakRssWholeRunMiB: {
        api: toMiB(procStatusKb(bench.api.pid, 'VmHWM')),
        worker: toMiB(procStatusKb(bench.worker.pid, 'VmHWM')),
      },
    },
    RESULTS_FILE,
  );
  const errors = [
    ...Object.values(measured).flatMap((figures) => [figures.c1.errors, figures.c32.errors]),
    ...(held ? [held.open.errors, held.answerSerial.errors, held.answerParallel.errors] : []),
  ].reduce((a, b) => a + b, 0);
  if (errors > 0 || !hold) process.exitCode = 1;
}

runSuite(main);

/**
 * `npm run bench`: what POST /v1/orch/routing costs against Temporal's own floor on the same server.
 *
 * Sets up its own infrastructure (an in-memory Temporal dev server, a fresh Postgres database or the
 * embedded one, migrations, a signing key, reviewers), runs the API and a worker as child processes, and
 * drives both the routing endpoint over HTTP and a no-op Update-with-Start workflow (the floor) with the
 * same count and concurrency, in alternating rounds after a warm-up. Prints latency, throughput, peak RSS,
 * CPU per request and the routing/floor ratios against the targets, and writes them to
 * bench-results/routing.json. Tears everything down, also on error or Ctrl-C.
 */
import { randomBytes } from 'node:crypto';
import { cpus } from 'node:os';
import path from 'node:path';
import { WithStartWorkflowOperation, type Client } from '@temporalio/client';
import { BENCH_FLOOR_WORKFLOW, floorUpdate, type BenchFloorWorkflow } from './floor/contract';
import { runClosedLoop, summarize, type LoadRun, type Send } from './load';
import { procStatusKb, ProcessMeter } from './processes';
import {
  judge,
  phaseFigures,
  printTable,
  toMiB,
  writeResults,
  type Kind,
  type PhaseFigures,
  type Results,
} from './report';
import { type BenchStack, runSuite, say, settle, startBenchStack, unlessAServiceDies, watchedBy } from './stack';

const REQUESTS = 2000;
const WARM_UP_REQUESTS = 200;
const CONCURRENCY = 32;
/** Routing and floor take turns in rounds, so that load from elsewhere on the machine hits both alike. */
const ROUNDS = 4;
/** Between rounds, the stack counts as idle once it uses less than this share of one core. */
const SETTLED_CPU_FRACTION = 0.1;
const SETTLE_WINDOW_MS = 250;
const SETTLE_TIMEOUT_MS = 10_000;
const TASK_QUEUE = 'bench-routing';
const RESULTS_FILE = path.resolve(__dirname, '..', '..', 'bench-results', 'routing.json');
/** The production workflows and the floor, which the production bundle leaves out. */
/** The worker process with the floor workflow in its bundle beside the production ones. */
const FLOOR_WORKER = path.join(__dirname, 'floor', 'worker.ts');

/** Half the requests must go to a human (a reviewer holds general_review), half stay with the agent. */
const ROUTING_CASES = [
  {
    expectedDecision: 'escalate_to_human',
    body: JSON.stringify({
      task_type: 'bench_review',
      ai_agent_id: 'urn:bench:agent:1',
      ai_confidence: 0.5,
      required_capabilities: [{ capability_id: 'general_review', min_weight: 0.5 }],
    }),
  },
  {
    expectedDecision: 'ai_autonomous',
    body: JSON.stringify({ task_type: 'bench_summarize', ai_agent_id: 'urn:bench:agent:1', ai_confidence: 0.95 }),
  },
] as const;

function routingSend(baseUrl: string, token: string): Send {
  const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
  return async (index) => {
    const { expectedDecision, body } = ROUTING_CASES[index % ROUTING_CASES.length]!;
    const response = await fetch(`${baseUrl}/v1/orch/routing`, { method: 'POST', headers, body });
    const text = await response.text();
    if (response.status !== 200) return { ok: false, error: `HTTP ${response.status}: ${text.slice(0, 300)}` };
    const decision = (JSON.parse(text) as { decision?: string }).decision;
    return decision === expectedDecision
      ? { ok: true }
      : { ok: false, error: `decision ${decision ?? 'missing'}, expected ${expectedDecision}` };
  };
}

function floorSend(client: Client, workflowIdPrefix: string): Send {
  return async (index) => {
    const answer = await client.workflow.executeUpdateWithStart(floorUpdate, {
      startWorkflowOperation: new WithStartWorkflowOperation<BenchFloorWorkflow>(BENCH_FLOOR_WORKFLOW, {
        workflowId: `${workflowIdPrefix}-${index}`,
        taskQueue: TASK_QUEUE,
        args: [{ answerWithinMs: 60_000 }],
        workflowIdConflictPolicy: 'USE_EXISTING',
      }),
    });
    return answer === 'ok' ? { ok: true } : { ok: false, error: `floor answered ${answer}` };
  };
}

async function runRound(label: string, run: () => Promise<LoadRun>, meter?: ProcessMeter): Promise<LoadRun> {
  const result = meter ? await meter.measure(run) : await run();
  const { p99Ms, throughputPerSecond, errors, errorSamples } = summarize([result]);
  say(`  ${label}: ${throughputPerSecond.toFixed(0)} req/s, p99 ${p99Ms.toFixed(0)} ms, ${errors} errors`);
  for (const sample of errorSamples) say(`    error: ${sample}`);
  return result;
}

type Load = (kind: Kind, count: number, firstIndex: number) => () => Promise<LoadRun>;

async function measureInRounds(stack: BenchStack, load: Load): Promise<Record<Kind, PhaseFigures>> {
  const meters: Record<Kind, ProcessMeter> = {
    routing: new ProcessMeter(watchedBy(stack)),
    floor: new ProcessMeter(watchedBy(stack)),
  };
  const runs: Record<Kind, LoadRun[]> = { routing: [], floor: [] };
  const perRound = REQUESTS / ROUNDS;
  say(`Measuring: ${REQUESTS} requests of each at concurrency ${CONCURRENCY}, in ${ROUNDS} rounds…`);
  for (let round = 0; round < ROUNDS; round += 1) {
    // Taking turns at going first cancels what going first or second does to a round.
    const order: Kind[] = round % 2 === 0 ? ['floor', 'routing'] : ['routing', 'floor'];
    for (const kind of order) {
      await settle([stack.api.pid, stack.worker.pid, ...stack.temporalPids], {
        windowMs: SETTLE_WINDOW_MS,
        busyFraction: SETTLED_CPU_FRACTION,
        timeoutMs: SETTLE_TIMEOUT_MS,
      });
      const firstIndex = WARM_UP_REQUESTS + round * perRound;
      runs[kind].push(await runRound(`round ${round + 1} ${kind}`, load(kind, perRound, firstIndex), meters[kind]));
    }
  }
  return {
    routing: phaseFigures(runs.routing, meters.routing.usage()),
    floor: phaseFigures(runs.floor, meters.floor.usage()),
  };
}

async function main(): Promise<void> {
  const { client, database, baseUrl, token, stack } = await startBenchStack({
    taskQueue: TASK_QUEUE,
    env: { RATE_LIMIT_ROUTING_REQUESTS: '1000000' },
    workerEntry: FLOOR_WORKER,
  });
  const { api, worker } = stack;

  const sends: Record<Kind, Send> = {
    routing: routingSend(baseUrl, token),
    floor: floorSend(client, `bench-floor-${randomBytes(4).toString('hex')}`),
  };
  const load: Load = (kind, count, firstIndex) => () =>
    unlessAServiceDies(runClosedLoop({ count, concurrency: CONCURRENCY, send: sends[kind], firstIndex }), [
      api,
      worker,
    ]);

  // Not measured: JIT, connection pools and caches warm up.
  say(`Warm-up: ${WARM_UP_REQUESTS} requests of each at concurrency ${CONCURRENCY}…`);
  await runRound('routing', load('routing', WARM_UP_REQUESTS, 0));
  await runRound('floor', load('floor', WARM_UP_REQUESTS, 0));
  const { routing, floor } = await measureInRounds(stack, load);

  const results: Results = {
    generatedAt: new Date().toISOString(),
    machine: { cpus: cpus().length, node: process.version, database: database.kind },
    settings: { requests: REQUESTS, warmUpRequests: WARM_UP_REQUESTS, concurrency: CONCURRENCY, rounds: ROUNDS },
    routing,
    floor,
    ...judge(routing, floor),
    peakRssWholeRunMiB: {
      api: toMiB(procStatusKb(api.pid, 'VmHWM')),
      worker: toMiB(procStatusKb(worker.pid, 'VmHWM')),
    },
  };
  printTable(results);
  writeResults(results, RESULTS_FILE);
}

runSuite(main);

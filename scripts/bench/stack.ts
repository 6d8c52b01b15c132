/**
 * The infrastructure the HTTP benchmark suites share: an in-memory Temporal dev server, a fresh database
 * (migrated, with a signing key and the dev reviewers), the API and a worker as child processes, a token,
 * and a teardown that runs once however the suite ends (success, error, Ctrl-C).
 */
import { Client, Connection } from '@temporalio/client';
import { migrateToLatest } from '../../db/migrate';
import { loadConfig, tokenIssuer } from '../../runtime/config';
import { createKeyRing, ensureSigningKey } from '../../services/auth/key-ring';
import { issueAccessToken, SCOPES } from '../../services/auth/tokens';
import { seedDevReviewers } from '../dev-seed';
import { provisionTemporal } from '../provision-temporal';
import { startTemporalDevServer } from '../temporal-dev-server';
import { createBenchDatabase, serviceBackendPids, type BenchDatabase } from './database';
import { runClosedLoop, summarize, type LoadRun, type Send } from './load';
import { cpuSeconds, freePort, ProcessMeter, spawnService, type Service } from './processes';

export const NAMESPACE = 'default';
const READY_TIMEOUT_MS = 120_000;
/** Between rounds, the stack counts as idle once it uses less than this share of one core. */
const SETTLED_CPU_FRACTION = 0.1;
const SETTLE_WINDOW_MS = 250;
const SETTLE_TIMEOUT_MS = 10_000;

export const say = (line: string) => process.stdout.write(`${line}\n`);
export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const cleanups: Array<() => Promise<void>> = [];
let teardown: Promise<void> | undefined;

/** Runs every cleanup once, newest first, however many paths (error, signal, success) ask for it. */
export function tearDown(): Promise<void> {
  teardown ??= (async () => {
    for (const cleanup of cleanups.splice(0)) await cleanup().catch((error: unknown) => process.stderr.write(`cleanup failed: ${(error as Error).message}\n`));
  })();
  return teardown;
}

/** Only what the services need, so settings in the caller's shell cannot skew the run. */
function serviceEnv(settings: { databaseUrl: string; poolMax: number; temporalAddress: string; apiPort: number; taskQueue: string }): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    DATABASE_URL: settings.databaseUrl,
    DATABASE_POOL_MAX: String(settings.poolMax),
    TEMPORAL_ADDRESS: settings.temporalAddress,
    TEMPORAL_NAMESPACE: NAMESPACE,
    TEMPORAL_TASK_QUEUE: settings.taskQueue,
    PORT: String(settings.apiPort),
    HOST: '127.0.0.1',
    LOG_LEVEL: 'warn',
    RATE_LIMIT_ROUTING_REQUESTS: '1000000',
  };
}

/** Fails as soon as one of the services dies instead of waiting on it forever. */
export function unlessAServiceDies<T>(work: Promise<T>, services: Service[]): Promise<T> {
  return Promise.race([work, ...services.map((service) => service.exited)]);
}

async function waitUntil(what: string, probe: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + READY_TIMEOUT_MS;
  while (Date.now() < deadline) {
    if (await probe().catch(() => false)) return;
    await sleep(250);
  }
  throw new Error(`${what} was not ready within ${READY_TIMEOUT_MS / 1000} s`);
}

async function apiIsReady(baseUrl: string): Promise<boolean> {
  const response = await fetch(`${baseUrl}/readyz`);
  await response.arrayBuffer();
  return response.status === 200;
}

async function workerIsPolling(client: Client, taskQueue: string): Promise<boolean> {
  // 1 is TASK_QUEUE_TYPE_WORKFLOW; the enum lives in @temporalio/proto, which is not a direct dependency.
  const { pollers } = await client.workflowService.describeTaskQueue({ namespace: NAMESPACE, taskQueue: { name: taskQueue }, taskQueueType: 1 });
  return (pollers?.length ?? 0) > 0;
}

export interface BenchStack {
  baseUrl: string;
  /** A JWT with every scope, valid for the run. */
  token: string;
  client: Client;
  database: BenchDatabase;
  taskQueue: string;
  api: Service;
  worker: Service;
  temporalPids: number[];
}

/** Everything a suite measures against, torn down by tearDown(). */
export async function startBenchStack(taskQueue: string): Promise<BenchStack> {
  const { cli } = await provisionTemporal(say);
  say('Starting an in-memory Temporal dev server…');
  const temporalServer = await startTemporalDevServer({ cli, port: await freePort(), namespace: NAMESPACE });
  cleanups.unshift(() => temporalServer.stop());

  const database = await createBenchDatabase();
  cleanups.unshift(() => database.destroy());
  say(`Preparing ${database.kind === 'postgres' ? 'a fresh database on the local Postgres' : 'an embedded Postgres (one connection per process)'}…`);
  await migrateToLatest(database.db);
  await ensureSigningKey(database.db);
  await seedDevReviewers(database.db);

  const connection = await Connection.connect({ address: temporalServer.address });
  cleanups.unshift(() => connection.close());
  const client = new Client({ connection, namespace: NAMESPACE });

  const apiPort = await freePort();
  const env = serviceEnv({ databaseUrl: database.url, poolMax: database.poolMax, temporalAddress: temporalServer.address, apiPort, taskQueue });
  const config = loadConfig(env);
  const baseUrl = `http://127.0.0.1:${apiPort}`;
  const token = await issueAccessToken(createKeyRing(database.db), { issuer: tokenIssuer(config), audience: config.AUTH_AUDIENCE }, { subject: 'bench', scopes: SCOPES, ttlSeconds: 3600 });

  say('Starting the API and the worker as child processes…');
  const api = spawnService('api', 'api/server.ts', env);
  cleanups.unshift(() => api.stop());
  const worker = spawnService('worker', 'workers/main.ts', env);
  cleanups.unshift(() => worker.stop());
  await unlessAServiceDies(
    Promise.all([waitUntil('The API', () => apiIsReady(baseUrl)), waitUntil('The worker', () => workerIsPolling(client, taskQueue))]),
    [api, worker],
  );
  return { baseUrl, token, client, database, taskQueue, api, worker, temporalPids: temporalServer.process.pid === undefined ? [] : [temporalServer.process.pid] };
}

/**
 * Waits until the stack has caught up with the last round (Temporal keeps writing visibility and
 * timers after the answers went out), so that its leftovers are not billed to the next round.
 */
export async function settle(stack: BenchStack): Promise<void> {
  const pids = [stack.api.pid, stack.worker.pid, ...stack.temporalPids];
  const busySeconds = () => pids.reduce((sum, pid) => sum + (cpuSeconds(pid) ?? 0), 0);
  for (const deadline = Date.now() + SETTLE_TIMEOUT_MS; Date.now() < deadline; ) {
    const before = busySeconds();
    await sleep(SETTLE_WINDOW_MS);
    if (busySeconds() - before <= (SETTLE_WINDOW_MS / 1000) * SETTLED_CPU_FRACTION) return;
  }
  say(`  (the stack was still busy after ${SETTLE_TIMEOUT_MS / 1000} s; measuring anyway)`);
}

/** What the measurements watch: the two services, the Temporal server's process, and the database. */
export function watchedBy(stack: BenchStack): ConstructorParameters<typeof ProcessMeter>[0] {
  return {
    memory: { api: stack.api.pid, worker: stack.worker.pid },
    cpu: {
      api: () => [stack.api.pid],
      worker: () => [stack.worker.pid],
      temporal: () => stack.temporalPids,
      postgres: () => serviceBackendPids(stack.database),
      loadGenerator: () => [process.pid],
    },
  };
}

/** `count` requests at `concurrency`, failing fast if a service dies. */
export function closedLoop(stack: BenchStack, options: { count: number; concurrency: number; send: Send; firstIndex?: number }): Promise<LoadRun> {
  return unlessAServiceDies(runClosedLoop(options), [stack.api, stack.worker]);
}

export async function runRound(label: string, run: () => Promise<LoadRun>, meter?: ProcessMeter): Promise<LoadRun> {
  const result = meter ? await meter.measure(run) : await run();
  const { p99Ms, throughputPerSecond, errors, errorSamples } = summarize([result]);
  say(`  ${label}: ${throughputPerSecond.toFixed(0)} req/s, p99 ${p99Ms.toFixed(0)} ms, ${errors} errors`);
  for (const sample of errorSamples) say(`    error: ${sample}`);
  return result;
}

/** Runs a suite's main with teardown on success, error and Ctrl-C. */
export function runSuite(main: () => Promise<void>): void {
  let interrupted = false;
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    // `on`, not `once`: Ctrl-C reaches this process both from the terminal and relayed by tsx.
    process.on(signal, () => {
      if (interrupted) return;
      interrupted = true;
      say(`\n${signal}: tearing down…`);
      void tearDown().then(() => process.exit(130));
    });
  }
  main()
    .then(() => tearDown())
    .catch(async (error: unknown) => {
      // Ctrl-C also reaches the children, whose exit then fails the run; that is no news to the one who pressed it.
      if (!interrupted) process.stderr.write(`bench failed: ${error instanceof Error ? error.message : String(error)}\n`);
      await tearDown();
      process.exitCode = 1;
    });
}

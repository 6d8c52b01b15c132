/**
 * The set-up a benchmark suite shares with the others: an in-memory Temporal dev server, a fresh
 * database (migrated, with a signing key and reviewers), the API and a worker as child processes, a
 * token, and a teardown that runs once however the run ends (success, error or Ctrl-C).
 */
import { Client, Connection } from '@temporalio/client';
import { migrateToLatest } from '../../db/migrate';
import { loadConfig, tokenIssuer } from '../../runtime/config';
import { createKeyRing, ensureSigningKey } from '../../services/auth/key-ring';
import { issueAccessToken, SCOPES } from '../../services/auth/tokens';
import { seedDevReviewers } from '../dev-seed';
import { provisionTemporal } from '../provision-temporal';
import { startTemporalDevServer } from '../temporal-dev-server';
import { createBenchDatabase, type BenchDatabase } from './database';
import { freePort, spawnService, type Service } from './processes';

export const NAMESPACE = 'default';
const READY_TIMEOUT_MS = 120_000;

export const say = (line: string) => process.stdout.write(`${line}\n`);
export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const cleanups: Array<() => Promise<void>> = [];
let teardown: Promise<void> | undefined;

/** Registers a cleanup; they run newest first. */
export function onTearDown(cleanup: () => Promise<void>): void {
  cleanups.unshift(cleanup);
}

/** Runs every cleanup once, newest first, however many paths (error, signal, success) ask for it. */
export function tearDown(): Promise<void> {
  teardown ??= (async () => {
    for (const cleanup of cleanups.splice(0)) await cleanup().catch((error: unknown) => process.stderr.write(`cleanup failed: ${(error as Error).message}\n`));
  })();
  return teardown;
}

/** Runs a suite's main and tears down after it, also on error or Ctrl-C; a failure sets the exit code. */
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

/** Only what the services need, so settings in the caller's shell cannot skew the run. */
export function serviceEnv(
  settings: { databaseUrl: string; poolMax: number; temporalAddress: string; apiPort: number; taskQueue: string },
  extra: Record<string, string> = {},
): NodeJS.ProcessEnv {
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
    ...extra,
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

export interface Infrastructure {
  temporalServer: Awaited<ReturnType<typeof startTemporalDevServer>>;
  database: BenchDatabase;
  client: Client;
}

export async function startInfrastructure(): Promise<Infrastructure> {
  const { cli } = await provisionTemporal(say);
  say('Starting an in-memory Temporal dev server…');
  const temporalServer = await startTemporalDevServer({ cli, port: await freePort(), namespace: NAMESPACE });
  onTearDown(() => temporalServer.stop());

  const database = await createBenchDatabase();
  onTearDown(() => database.destroy());
  say(`Preparing ${database.kind === 'postgres' ? 'a fresh database on the local Postgres' : 'an embedded Postgres (one connection per process)'}…`);
  await migrateToLatest(database.db);
  await ensureSigningKey(database.db);
  await seedDevReviewers(database.db);

  const connection = await Connection.connect({ address: temporalServer.address });
  onTearDown(() => connection.close());
  return { temporalServer, database, client: new Client({ connection, namespace: NAMESPACE }) };
}

export async function startServices(env: NodeJS.ProcessEnv, baseUrl: string, client: Client): Promise<{ api: Service; worker: Service }> {
  say('Starting the API and the worker as child processes…');
  const api = spawnService('api', 'api/server.ts', env);
  onTearDown(() => api.stop());
  const worker = spawnService('worker', 'workers/main.ts', env);
  onTearDown(() => worker.stop());
  await unlessAServiceDies(
    Promise.all([waitUntil('The API', () => apiIsReady(baseUrl)), waitUntil('The worker', () => workerIsPolling(client, env.TEMPORAL_TASK_QUEUE!))]),
    [api, worker],
  );
  return { api, worker };
}

/** A token with every scope, signed by the deployment key the API checks against. */
export async function benchToken(database: BenchDatabase, env: NodeJS.ProcessEnv): Promise<string> {
  const config = loadConfig(env);
  return issueAccessToken(createKeyRing(database.db), { issuer: tokenIssuer(config), audience: config.AUTH_AUDIENCE }, { subject: 'bench', scopes: SCOPES, ttlSeconds: 3600 });
}

/**
 * The stack a benchmark suite runs against, set up and torn down by the suite itself: an in-memory
 * Temporal dev server, a fresh Postgres database (or the embedded one), migrations, a signing key and
 * reviewers, and the API and a worker as child processes. Cleanups run newest first, once, on success,
 * error or Ctrl-C.
 */
import { Client, Connection } from '@temporalio/client';
import { migrateToLatest } from '../../db/migrate';
import { loadConfig } from '../../app/config';
import { apiIsReady, issueEveryScopeToken, sleep, waitUntil, workflowPollerIdentities } from '../../app/stack';
import { ensureSigningKey } from '../../services/identity/issuance/key-ring';
import { seedDevReviewers } from '../dev-seed';
import { signInPerson } from '../sign-in-person';
import { provisionTemporal } from '../provision-temporal';
import { startTemporalDevServer, type DevServer } from '../temporal-dev-server';
import { createBenchDatabase, serviceBackendPids, type BenchDatabase } from './database';
import { cpuSeconds, freePort, type ProcessMeter, spawnService, type Service, WORKER_NODE_OPTIONS } from './processes';

export const NAMESPACE = 'default';
export const say = (line: string) => process.stdout.write(`${line}\n`);
export { sleep, waitUntil };

const cleanups: Array<() => Promise<void>> = [];
let teardown: Promise<void> | undefined;

export function onTearDown(cleanup: () => Promise<void>): void {
  cleanups.unshift(cleanup);
}

/** Runs every cleanup once, newest first, however many paths (error, signal, success) ask for it. */
export function tearDown(): Promise<void> {
  teardown ??= (async () => {
    for (const cleanup of cleanups.splice(0))
      await cleanup().catch((error: unknown) => process.stderr.write(`cleanup failed: ${(error as Error).message}\n`));
  })();
  return teardown;
}

/** Only what the services need, so settings in the caller's shell cannot skew the run. */
function serviceEnv(settings: {
  databaseUrl: string;
  poolMax: number;
  temporalAddress: string;
  apiPort: number;
  taskQueue: string;
  extra?: Record<string, string>;
}): NodeJS.ProcessEnv {
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
    // As `npm run start:api` and `start:worker` run them (docs/operations.md).
    MALLOC_ARENA_MAX: '2',
    ...settings.extra,
  };
}

/** Fails as soon as one of the services dies instead of waiting on it forever. */
export function unlessAServiceDies<T>(work: Promise<T>, services: Service[]): Promise<T> {
  return Promise.race([work, ...services.map((service) => service.exited)]);
}

async function workerIsPolling(client: Client, taskQueue: string): Promise<boolean> {
  return (await workflowPollerIdentities(client, taskQueue)).length > 0;
}

/**
 * Waits until the processes have caught up with the last phase (Temporal keeps writing visibility and
 * timers after the answers went out), so that its leftovers are not billed to the next one: until they use
 * less than `busyFraction` of one core over a window.
 */
export async function settle(
  pids: number[],
  options: { windowMs: number; busyFraction: number; timeoutMs: number },
): Promise<void> {
  const busySeconds = () => pids.reduce((sum, pid) => sum + (cpuSeconds(pid) ?? 0), 0);
  for (const deadline = Date.now() + options.timeoutMs; Date.now() < deadline;) {
    const before = busySeconds();
    await sleep(options.windowMs);
    if (busySeconds() - before <= (options.windowMs / 1000) * options.busyFraction) return;
  }
  say(`  (the stack was still busy after ${options.timeoutMs / 1000} s; measuring anyway)`);
}

export interface Infrastructure {
  temporalServer: DevServer;
  database: BenchDatabase;
  client: Client;
}

async function startInfrastructure(): Promise<Infrastructure> {
  const { cli } = await provisionTemporal(say);
  say('Starting an in-memory Temporal dev server…');
  // As npm start runs it: below the API's priority.
  const temporalServer = await startTemporalDevServer({
    cli,
    port: await freePort(),
    namespace: NAMESPACE,
    yieldToApi: true,
  });
  onTearDown(() => temporalServer.stop());

  const database = await createBenchDatabase();
  onTearDown(() => database.destroy());
  say(
    `Preparing ${database.kind === 'postgres' ? 'a fresh database on the local Postgres' : 'an embedded Postgres (one connection per process)'}…`,
  );
  await migrateToLatest(database.db);
  await ensureSigningKey(database.db);
  await seedDevReviewers(database.db);

  const connection = await Connection.connect({ address: temporalServer.address });
  onTearDown(() => connection.close());
  return { temporalServer, database, client: new Client({ connection, namespace: NAMESPACE }) };
}

/** The API and a worker as child processes, ready once the API answers /readyz and the worker polls. */
async function startServices(
  env: NodeJS.ProcessEnv,
  baseUrl: string,
  client: Client,
  options: { workerEnv?: Record<string, string>; workerEntry?: string } = {},
) {
  say('Starting the API and the worker as child processes…');
  const api = spawnService('api', 'app/api.ts', env);
  onTearDown(() => api.stop());
  const worker = spawnService('worker', options.workerEntry ?? 'app/worker.ts', {
    ...env,
    NODE_OPTIONS: WORKER_NODE_OPTIONS,
    ...options.workerEnv,
  });
  onTearDown(() => worker.stop());
  await unlessAServiceDies(
    Promise.all([
      waitUntil('The API', () => apiIsReady(baseUrl)),
      waitUntil('The worker', () => workerIsPolling(client, env.TEMPORAL_TASK_QUEUE!)),
    ]),
    [api, worker],
  );
  return { api, worker };
}

/** What the measurements watch: the two services, the Temporal server's process, and the database. */
export interface BenchStack {
  api: Service;
  worker: Service;
  temporalPids: number[];
  database: BenchDatabase;
}

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

/**
 * Everything a suite measures, started: Temporal, the database, the API and a worker on `taskQueue` with the
 * suite's own settings (and worker entry, when it runs workflows of its own), a token with every scope, and
 * signIn, which gives a person with a DID the suite names a session token for the acts only people do.
 */
export async function startBenchStack(options: {
  taskQueue: string;
  env?: Record<string, string>;
  workerEnv?: Record<string, string>;
  workerEntry?: string;
}) {
  const { temporalServer, database, client } = await startInfrastructure();
  const apiPort = await freePort();
  const env = serviceEnv({
    databaseUrl: database.url,
    poolMax: database.poolMax,
    temporalAddress: temporalServer.address,
    apiPort,
    taskQueue: options.taskQueue,
    ...(options.env ? { extra: options.env } : {}),
  });
  const baseUrl = `http://127.0.0.1:${apiPort}`;
  // From the database's signing key, sealed with the services' secrets key, for the services' config.
  const token = await issueEveryScopeToken(database.db, loadConfig(env), { subject: 'bench', ttlSeconds: 3600 });
  const { api, worker } = await startServices(env, baseUrl, client, {
    ...(options.workerEnv ? { workerEnv: options.workerEnv } : {}),
    ...(options.workerEntry ? { workerEntry: options.workerEntry } : {}),
  });
  const stack: BenchStack = { api, worker, temporalPids: [temporalServer.pid], database };
  return {
    client,
    database,
    baseUrl,
    token,
    stack,
    temporalAddress: temporalServer.address,
    config: loadConfig(env),
    signIn: (did: string) => signInPerson(database.db, loadConfig(env), did),
  };
}

/** Runs a suite: tears everything down on success, error or Ctrl-C, and fails the process on error. */
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
      if (!interrupted)
        process.stderr.write(`bench failed: ${error instanceof Error ? error.message : String(error)}\n`);
      await tearDown();
      process.exitCode = 1;
    });
}

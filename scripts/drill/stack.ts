/**
 * The stack the drills break: their own PostgreSQL cluster, their own Temporal dev server (a SQLite file, so
 * that it can be killed and restarted), and the API and a worker as separate processes, the way production
 * runs them. Each part can be killed (-9) and started again.
 */
import { appendFileSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { loadConfig } from '../../app/config';
import { apiIsReady, issueEveryScopeToken, sleep, waitUntil, workflowPollerIdentities } from '../../app/stack';
import { createDb, type Db } from '../../db/connection';
import { freePort } from '../../lib/net';
import { seedDevReviewers } from '../dev-seed';
import { signInPerson } from '../sign-in-person';
import { spawnService, type Service, WORKER_NODE_OPTIONS } from '../bench/processes';
import { provisionTemporal } from '../provision-temporal';
import { startTemporalDevServer, type DevServer } from '../temporal-dev-server';
import { createCluster, type Cluster } from './cluster';

export const NAMESPACE = 'default';
export const TASK_QUEUE = 'drill';
/** The request deadline the drills check every answer against (REQUEST_TIMEOUT_MS of the API). */
export const REQUEST_TIMEOUT_MS = 8000;
/** The person every drill approval is addressed to; the drills answer with their session. */
export const DRILL_APPROVER = 'did:web:drill.example:people:cfo';
export { sleep };

export interface DrillStack {
  baseUrl: string;
  token: string;
  /** A session of the person every drill approval is addressed to (DRILL_APPROVER): only a person answers. */
  approverToken: string;
  /** The drill's own view of the database (not through the API): what was stored. */
  db: Db;
  temporal: Client;
  cluster: Cluster;
  databaseUrl: string;
  env: NodeJS.ProcessEnv;
  /** The services' last log lines, for a drill that failed. */
  logTail(lines: number): string[];
  killApi(): void;
  startApi(): Promise<void>;
  killWorker(): void;
  startWorker(): Promise<void>;
  /**
   * One more API (on a port of its own, with the same PUBLIC_BASE_URL) or worker process, for the scale-out
   * drill; killed or stopped by the drill, and stopped with the stack.
   */
  startExtra(kind: 'api' | 'worker'): Promise<ExtraProcess>;
  killTemporal(): void;
  startTemporal(): Promise<void>;
  stop(): Promise<void>;
}

export interface ExtraProcess {
  /** The API's own address (an API's), beside the shared PUBLIC_BASE_URL. */
  baseUrl: string | undefined;
  kill(): void;
  stop(): Promise<void>;
}

function kill9(service: Service | undefined): void {
  if (!service) return;
  try {
    process.kill(service.pid, 'SIGKILL');
  } catch {
    // Already gone.
  }
}

export async function startDrillStack(say: (line: string) => void): Promise<DrillStack> {
  const { cli } = await provisionTemporal(() => undefined);
  say('Starting a PostgreSQL cluster of the drills’ own (initdb)…');
  const cluster = await createCluster();
  const temporalDir = mkdtempSync(path.join(tmpdir(), 'handoff-drill-temporal-'));
  const temporalPort = await freePort();
  const startServer = () =>
    startTemporalDevServer({
      cli,
      dataDir: temporalDir,
      port: temporalPort,
      namespace: NAMESPACE,
      quiet: !process.env.HANDOFF_DRILL_LOGS,
    });
  say('Starting a Temporal dev server of their own (SQLite file)…');
  let temporalServer: DevServer = await startServer();
  const apiPort = await freePort();
  const baseUrl = `http://127.0.0.1:${apiPort}`;
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    DATABASE_URL: cluster.url,
    DATABASE_POOL_MAX: '8',
    TEMPORAL_ADDRESS: temporalServer.address,
    TEMPORAL_NAMESPACE: NAMESPACE,
    TEMPORAL_TASK_QUEUE: TASK_QUEUE,
    PORT: String(apiPort),
    HOST: '127.0.0.1',
    PUBLIC_BASE_URL: baseUrl,
    LOG_LEVEL: 'warn',
    REQUEST_TIMEOUT_MS: String(REQUEST_TIMEOUT_MS),
    LEDGER_BLOCK_MAX_AGE_MS: '500',
  };
  // As `npm run start:worker` runs a worker.
  const workerEnv = { ...env, NODE_OPTIONS: WORKER_NODE_OPTIONS };
  const connection = await Connection.connect({ address: temporalServer.address });
  const temporal = new Client({ connection, namespace: NAMESPACE });
  const db = createDb({ connectionString: cluster.url, poolMax: 4, applicationName: 'handoff-drill' });

  let api: Service | undefined;
  let worker: Service | undefined;
  // The services' error lines (every 503 of an outage is one) go to a file; HANDOFF_DRILL_LOGS shows them.
  const logFile = path.join(temporalDir, 'services.log');
  const serviceLog = (name: string) => (line: string) => {
    if (process.env.HANDOFF_DRILL_LOGS) process.stderr.write(`[${name}] ${line}\n`);
    else appendFileSync(logFile, `[${name}] ${line}\n`);
  };
  const startApi = async () => {
    api = spawnService('api', 'app/api.ts', env, [], { onStderr: serviceLog('api') });
    await waitUntil('The API', () => apiIsReady(baseUrl));
  };
  const startWorker = async () => {
    worker = spawnService('worker', 'app/worker.ts', workerEnv, [], { onStderr: serviceLog('worker') });
    // Pollers of a killed worker linger in describeTaskQueue for a while: wait for this one's first poll instead.
    await waitUntil('The worker', async () =>
      (await workflowPollerIdentities(temporal, TASK_QUEUE)).some((identity) => identity.startsWith(`${worker!.pid}@`)),
    );
  };

  const extras: Service[] = [];
  const startExtra = async (kind: 'api' | 'worker'): Promise<ExtraProcess> => {
    const port = await freePort();
    const service = spawnService(
      `${kind}-${extras.length + 2}`,
      `app/${kind}.ts`,
      { ...(kind === 'worker' ? workerEnv : env), PORT: String(port) },
      [],
      {
        onStderr: serviceLog(`${kind}-${extras.length + 2}`),
      },
    );
    extras.push(service);
    const extraUrl = `http://127.0.0.1:${port}`;
    if (kind === 'api') await waitUntil('The extra API', () => apiIsReady(extraUrl));
    else
      await waitUntil('The extra worker', async () =>
        (await workflowPollerIdentities(temporal, TASK_QUEUE)).some((identity) =>
          identity.startsWith(`${service.pid}@`),
        ),
      );
    return { baseUrl: kind === 'api' ? extraUrl : undefined, kill: () => kill9(service), stop: () => service.stop() };
  };

  say('Starting the API and the worker as separate processes…');
  // The worker migrates the database; the API waits for it.
  await startWorker();
  await seedDevReviewers(db);
  await startApi();
  const config = loadConfig(env);
  const token = await issueEveryScopeToken(db, config, { subject: 'drill', ttlSeconds: 3600 });
  const approverToken = await signInPerson(db, config, DRILL_APPROVER);

  return {
    baseUrl,
    token,
    approverToken,
    db,
    temporal,
    cluster,
    databaseUrl: cluster.url,
    env,
    logTail: (lines) => (existsSync(logFile) ? readFileSync(logFile, 'utf8').trimEnd().split('\n').slice(-lines) : []),
    killApi: () => kill9(api),
    startApi,
    killWorker: () => kill9(worker),
    startWorker,
    startExtra,
    killTemporal: () => {
      try {
        process.kill(temporalServer.pid, 'SIGKILL');
      } catch {
        // Already gone.
      }
    },
    async startTemporal() {
      temporalServer = await startServer();
    },
    async stop() {
      for (const extra of extras) await extra.stop();
      await api?.stop();
      await worker?.stop();
      await connection.close();
      await db.destroy();
      await temporalServer.stop();
      cluster.destroy();
      rmSync(temporalDir, { recursive: true, force: true });
    },
  };
}

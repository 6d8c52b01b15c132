/**
 * What every way of starting the whole system shares: `npm start` (scripts/dev.ts) and the HTTP tests
 * (test/support/stack.ts) run the worker side and the API in their own process; the benchmarks and the
 * drills (scripts/bench/stack.ts, scripts/drill/stack.ts) run them as child processes and wait until they
 * are ready. Each starter keeps only its differences: where Temporal and Postgres come from, its settings,
 * what it seeds and prints.
 */
import type { Server } from 'node:http';
import { Client } from '@temporalio/client';
import { temporal as proto } from '@temporalio/proto';
import type { NativeConnection, Worker, WorkflowBundleWithSourceMap } from '@temporalio/worker';
import type { Knex } from 'knex';
import { buildApp, type AppDeps } from '../api/app';
import { DEFAULT_ORGANIZATION_ID } from '../domain/common/organizations';
import { closeServer, listen } from '../lib/http-server';
import type { Logger } from '../lib/logger';
import { secretKeysFrom } from '../lib/secret-box';
import type { Tracing } from '../lib/tracing';
import { createKeyRing } from '../services/identity/issuance/key-ring';
import { registerTokenSubject } from '../services/identity/issuance/subjects';
import { issueAccessToken } from '../services/identity/issuance/access-tokens';
import { SCOPES } from '../services/identity/scopes';
import { startLedgerSealer } from '../services/ledger/sealer';
import { startTokenRefresher } from '../services/connectors/refresher';
import { createWorker, type WorkerBudget } from '../workers/create-worker';
import { deliveryTaskQueueOf } from '../contracts/deliver-webhook';
import { tokenIssuer, type Config } from './config';
import {
  closeAppDeps,
  createAppDeps,
  ledgerSealerSettings,
  mailerOf,
  smsSenderOf,
  workerBudgets,
  workerSettings,
} from './deps';
import { startOutboxDispatch } from './outbox-dispatch';
import { tracedClientOptions } from './temporal';

export interface RunningWorker {
  /** The worker of the human-facing task queue (TEMPORAL_TASK_QUEUE). */
  worker: Worker;
  /** The worker of the deliveries' task queue beside it, with its own budget. */
  deliveryWorker: Worker;
  /** Resolves once the worker has stopped: after stop(), or when the SDK's runtime stopped it on a signal. */
  running: Promise<void>;
  /** Stops the outbox dispatcher, then the worker once its in-flight tasks finish. */
  stop(): Promise<void>;
}

/**
 * Two workers, running: one on the configured task queue (the human-facing paths, the dispatcher, the sealer) and
 * one on its deliveries' queue, each with its own budget (workerBudgets), sharing the connection and the bundle;
 * with the outbox dispatcher kept running beside them (woken by commits on `databaseUrl`, a Postgres server;
 * polling without one) and the ledger sealer started.
 */
export async function startWorkerSide(deps: {
  config: Config;
  db: Knex;
  connection: NativeConnection;
  workflowBundle: WorkflowBundleWithSourceMap;
  logger: Logger;
  databaseUrl: string | undefined;
  tracing?: Tracing | undefined;
}): Promise<RunningWorker> {
  const { config, logger } = deps;
  const taskQueue = config.TEMPORAL_TASK_QUEUE;
  const mailer = mailerOf(config);
  const sms = smsSenderOf(config);
  const budgets = workerBudgets(config);
  const workerOn = (queue: string, budget: WorkerBudget) =>
    createWorker({
      connection: deps.connection,
      namespace: config.TEMPORAL_NAMESPACE,
      taskQueue: queue,
      db: deps.db,
      workflowBundle: deps.workflowBundle,
      settings: workerSettings(config),
      budget,
      logger,
      mailer,
      sms,
      tracing: deps.tracing,
    });
  const worker = await workerOn(taskQueue, budgets.humanFacing);
  const deliveryWorker = await workerOn(deliveryTaskQueueOf(taskQueue), budgets.deliveries);
  const running = Promise.all([worker.run(), deliveryWorker.run()]).then(() => undefined);
  const temporal = new Client({
    connection: deps.connection,
    namespace: config.TEMPORAL_NAMESPACE,
    ...tracedClientOptions(deps.tracing !== undefined),
  });
  // Signal-with-start: a sealer already running (a restarted worker's) only takes the settings again.
  await startLedgerSealer(temporal, { taskQueue, settings: ledgerSealerSettings(config) });
  await startTokenRefresher(temporal, {
    taskQueue,
    input: {
      interval_seconds: config.CONNECTOR_REFRESH_INTERVAL_SECONDS,
      refresh_ahead_seconds: config.CONNECTOR_REFRESH_AHEAD_SECONDS,
      passes_per_run: 100,
    },
  });
  const outbox = await startOutboxDispatch({
    temporal,
    taskQueue,
    databaseUrl: deps.databaseUrl,
    minWakeIntervalMs: config.WEBHOOK_DISPATCH_WAKE_INTERVAL_MS,
    logger,
  });
  return {
    worker,
    deliveryWorker,
    running,
    async stop() {
      await outbox.stop();
      for (const each of [worker, deliveryWorker]) if (each.getState() === 'RUNNING') each.shutdown();
      await running;
      mailer.close();
    },
  };
}

export interface RunningApi {
  server: Server;
  deps: AppDeps;
  /** Stops taking connections, lets requests finish, then closes the revocation registry and the decision waits. */
  stop(): Promise<void>;
}

/** The app from buildApp, listening on the configured host and port (or the ones given). */
export async function startApiSide(
  config: Config,
  parts: Parameters<typeof createAppDeps>[1] & {
    host?: string;
    settings?: Partial<AppDeps['settings']>;
    /** A server already bound to config.PORT (see reservePort). */
    reserved?: Server;
  },
): Promise<RunningApi> {
  const { host, settings, reserved, ...appParts } = parts;
  const deps = createAppDeps(config, appParts);
  const server = await listen(buildApp({ ...deps, settings: { ...deps.settings, ...settings } }), {
    host: host ?? config.HOST,
    port: config.PORT,
    reserved,
  });
  return {
    server,
    deps,
    async stop() {
      await closeServer(server);
      await closeAppDeps(deps);
    },
  };
}

/** A token with every scope for `subject`, registered in the default organization, signed with the database's key. */
export async function issueEveryScopeToken(
  db: Knex,
  config: Config,
  options: { subject: string; ttlSeconds: number },
): Promise<string> {
  // A token without a service account holds only what its subject is registered for.
  await registerTokenSubject(db, { subject: options.subject, organizationId: DEFAULT_ORGANIZATION_ID, scopes: SCOPES });
  const keyRing = createKeyRing(db, {
    secretKeys: secretKeysFrom(config.SECRETS_ENCRYPTION_KEY, config.SECRETS_ENCRYPTION_PREVIOUS_KEYS),
  });
  const settings = { issuer: tokenIssuer(config), audience: config.AUTH_AUDIENCE };
  return issueAccessToken(keyRing, settings, {
    subject: options.subject,
    scopes: SCOPES,
    organizationId: DEFAULT_ORGANIZATION_ID,
    ttlSeconds: options.ttlSeconds,
  });
}

const READY_TIMEOUT_MS = 120_000;

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export async function waitUntil(
  what: string,
  probe: () => Promise<boolean>,
  timeoutMs = READY_TIMEOUT_MS,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await probe().catch(() => false)) return;
    await sleep(250);
  }
  throw new Error(`${what} was not ready within ${timeoutMs / 1000} s`);
}

/** An API process is ready once its /readyz answers 200. */
export async function apiIsReady(baseUrl: string): Promise<boolean> {
  const response = await fetch(`${baseUrl}/readyz`);
  await response.arrayBuffer();
  return response.status === 200;
}

/** Who polls the task queue for workflow tasks (`<pid>@<host>` for a worker process). */
export async function workflowPollerIdentities(client: Client, taskQueue: string): Promise<string[]> {
  const { pollers } = await client.workflowService.describeTaskQueue({
    namespace: client.options.namespace,
    taskQueue: { name: taskQueue },
    taskQueueType: proto.api.enums.v1.TaskQueueType.TASK_QUEUE_TYPE_WORKFLOW,
  });
  return pollers.map((poller) => poller.identity ?? '');
}

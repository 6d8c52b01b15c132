/**
 * Production entry of a worker alone: runs every workflow and activity of the task queue against an
 * existing Postgres (DATABASE_URL) and Temporal (TEMPORAL_ADDRESS). Stops gracefully on SIGINT/SIGTERM.
 */
import path from 'node:path';
import { Client } from '@temporalio/client';
import { createDb } from '../db/connection';
import { ledgerOrigin, loadConfig } from './config';
import { dbTimeoutsOf, migrateDatabase } from './database';
import { ledgerSealerSettings, workerSettings } from './deps';
import { createLogger } from '../lib/logger';
import { connectTemporalClient, connectWorkerConnection } from './temporal';
import { ensureLedgerKey } from '../services/ledger/keys';
import { secretKeysFrom } from '../lib/secret-box';
import { startLedgerSealer } from '../services/ledger/sealer';
import { startOutboxDispatch } from './outbox-dispatch';
import { bundleWorkflowsApart, createWorker, installWorkerRuntime } from '../workers/create-worker';
import { closeServer } from '../lib/http-server';
import { metricsRegistryOf, serveMetrics, tracingOf } from './observability';
import { tracedClientOptions } from './temporal';

/** `--workflows <file>` bundles another workflows file (the benchmark adds its floor); the production set by default. */
function workflowsPathArgument(argv: string[]): string | undefined {
  const at = argv.indexOf('--workflows');
  return at >= 0 ? path.resolve(argv[at + 1] ?? '') : undefined;
}

async function main(): Promise<void> {
  const config = loadConfig(process.env);
  const logger = createLogger({ level: config.LOG_LEVEL });
  if (!config.DATABASE_URL) throw new Error('DATABASE_URL is required for the worker entry; `npm start` runs an embedded Postgres for development');
  installWorkerRuntime(logger, { metricsBindAddress: config.TEMPORAL_METRICS_BIND_ADDRESS });
  const tracing = tracingOf(config, 'handoff-worker');
  const metrics = metricsRegistryOf(config, { api: false, worker: true });
  await migrateDatabase(config.DATABASE_URL, logger);
  const db = createDb({ connectionString: config.DATABASE_URL, poolMax: config.DATABASE_POOL_MAX, applicationName: 'handoff-worker', logger, timeouts: dbTimeoutsOf(config) });
  const secretKeys = secretKeysFrom(config.SECRETS_ENCRYPTION_KEY, config.SECRETS_ENCRYPTION_PREVIOUS_KEYS);
  await ensureLedgerKey(db, ledgerOrigin(config), (message) => logger.warn(message), secretKeys);
  const connection = await connectWorkerConnection(config);
  const worker = await createWorker({
    connection,
    namespace: config.TEMPORAL_NAMESPACE,
    taskQueue: config.TEMPORAL_TASK_QUEUE,
    db,
    workflowBundle: await bundleWorkflowsApart(workflowsPathArgument(process.argv), { traced: tracing !== undefined }),
    settings: workerSettings(config),
    logger,
    tracing,
  });
  const metricsServer = await serveMetrics(config, metrics, { logger, worker: true });
  const client = await connectTemporalClient(config);
  await startLedgerSealer(client, { taskQueue: config.TEMPORAL_TASK_QUEUE, settings: ledgerSealerSettings(config) });
  await client.connection.close();
  logger.info('worker running', { task_queue: config.TEMPORAL_TASK_QUEUE, namespace: config.TEMPORAL_NAMESPACE });
  const running = worker.run();
  const outbox = await startOutboxDispatch({
    temporal: new Client({ connection, namespace: config.TEMPORAL_NAMESPACE, ...tracedClientOptions(tracing !== undefined) }),
    taskQueue: config.TEMPORAL_TASK_QUEUE,
    databaseUrl: config.DATABASE_URL,
    minWakeIntervalMs: config.WEBHOOK_DISPATCH_WAKE_INTERVAL_MS,
    logger,
  });
  // The SDK's runtime shuts the worker down on SIGINT/SIGTERM; run() resolves once in-flight tasks finish.
  await running;
  await outbox.stop();
  await connection.close();
  await db.destroy();
  if (metricsServer) await closeServer(metricsServer);
  await tracing?.shutdown();
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});

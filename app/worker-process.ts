/**
 * A worker process alone: runs every workflow and activity of the task queue against an existing Postgres
 * (DATABASE_URL) and Temporal (TEMPORAL_ADDRESS). Stops gracefully on SIGINT/SIGTERM.
 */
import { ledgerOrigin, loadConfig } from './config';
import { openMigratedDatabase } from './database';
import { createLogger } from '../lib/logger';
import { connectWorkerConnection } from './temporal';
import { ensureLedgerKey } from '../services/ledger/keys';
import { secretKeysFrom } from '../lib/secret-box';
import { bundleWorkflowsApart, installWorkerRuntime } from '../workers/create-worker';
import { closeServer } from '../lib/http-server';
import { metricsRegistryOf, serveMetrics, tracingOf } from './observability';
import { startWorkerSide } from './stack';

/** Runs until SIGINT/SIGTERM; `workflowsPath` bundles another workflows file than the production set (workflows/index.ts). */
export async function runWorkerProcess(
  env: NodeJS.ProcessEnv,
  options: { workflowsPath?: string } = {},
): Promise<void> {
  const config = loadConfig(env);
  const logger = createLogger({ level: config.LOG_LEVEL });
  if (!config.DATABASE_URL)
    throw new Error(
      'DATABASE_URL is required for the worker entry; `npm start` runs an embedded Postgres for development',
    );
  installWorkerRuntime(logger, { metricsBindAddress: config.TEMPORAL_METRICS_BIND_ADDRESS });
  const tracing = tracingOf(config, 'handoff-worker');
  const metrics = metricsRegistryOf(config, { api: false, worker: true });
  const db = await openMigratedDatabase(config.DATABASE_URL, config, 'handoff-worker', logger);
  const secretKeys = secretKeysFrom(config.SECRETS_ENCRYPTION_KEY, config.SECRETS_ENCRYPTION_PREVIOUS_KEYS);
  await ensureLedgerKey(db, ledgerOrigin(config), (message) => logger.warn(message), secretKeys);
  const connection = await connectWorkerConnection(config);
  const workflowBundle = await bundleWorkflowsApart(options.workflowsPath, { traced: tracing !== undefined });
  const metricsServer = await serveMetrics(config, metrics, { logger, worker: true });
  const workerSide = await startWorkerSide({
    config,
    db,
    connection,
    workflowBundle,
    logger,
    databaseUrl: config.DATABASE_URL,
    tracing,
  });
  logger.info('worker running', { task_queue: config.TEMPORAL_TASK_QUEUE, namespace: config.TEMPORAL_NAMESPACE });
  // The SDK's runtime shuts the worker down on SIGINT/SIGTERM; run() resolves once in-flight tasks finish.
  await workerSide.running;
  await workerSide.stop();
  await connection.close();
  await db.destroy();
  if (metricsServer) await closeServer(metricsServer);
  await tracing?.shutdown();
}

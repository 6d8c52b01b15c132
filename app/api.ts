/**
 * Production entry of the API alone: configured by the environment, against an existing Postgres
 * (DATABASE_URL) and Temporal (TEMPORAL_ADDRESS). `npm start` runs everything on one machine instead.
 */
import { ledgerOrigin, loadConfig } from './config';
import { openMigratedDatabase } from './database';
import { closeAppDeps, createAppDeps } from './deps';
import { createLogger } from '../lib/logger';
import { closeServer, listenUntilSignalled } from '../lib/http-server';
import { metricsRegistryOf, serveMetrics, tracingOf } from './observability';
import { connectTemporalClient } from './temporal';
import { ensureSigningKey } from '../services/identity/issuance/key-ring';
import { loadModelSeed } from '../services/models/registry';
import { modelSeed } from '../services/models/seed';
import { ensureLedgerKey } from '../services/ledger/keys';
import { secretKeysFrom } from '../lib/secret-box';
import { buildApp } from '../api/app';
import { afterAnswerWorkSettled } from '../services/workflow-starts/signals';

/** How long a stopping API waits for the signals it is delivering; what is left, the outbox sweep delivers. */
const SHUTDOWN_DELIVERY_WAIT_MS = 5000;

async function main(): Promise<void> {
  const config = loadConfig(process.env);
  const logger = createLogger({ level: config.LOG_LEVEL });
  // Registered before anything that makes spans; both are off unless configured.
  const tracing = tracingOf(config, 'handoff-api');
  const metrics = metricsRegistryOf(config, { api: true, worker: false });
  if (!config.DATABASE_URL)
    throw new Error(
      'DATABASE_URL is required for the API entry; `npm start` runs an embedded Postgres for development',
    );
  const db = await openMigratedDatabase(config.DATABASE_URL, config, 'handoff-api', logger);
  // Private keys are sealed at rest with the secrets key; keys from before sealing are sealed here.
  const secretKeys = secretKeysFrom(config.SECRETS_ENCRYPTION_KEY, config.SECRETS_ENCRYPTION_PREVIOUS_KEYS);
  await ensureSigningKey(db, { secretKeys, warn: (message) => logger.warn(message) });
  await loadModelSeed(db, modelSeed());
  await ensureLedgerKey(db, ledgerOrigin(config), (message) => logger.warn(message), secretKeys);
  const temporal = await connectTemporalClient(config, { traced: tracing !== undefined });
  const deps = createAppDeps(config, { db, temporal, logger, metrics, tracing });
  const app = buildApp(deps);
  const metricsServer = await serveMetrics(config, metrics, { logger, worker: false });
  await listenUntilSignalled(app, { host: config.HOST, port: config.PORT, logger }, async () => {
    await closeAppDeps(deps);
    await afterAnswerWorkSettled(SHUTDOWN_DELIVERY_WAIT_MS);
    await temporal.connection.close();
    await db.destroy();
    if (metricsServer) await closeServer(metricsServer);
    await tracing?.shutdown();
  });
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});

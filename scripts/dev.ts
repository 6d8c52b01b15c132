/**
 * `npm start`: the whole service on one machine. Starts the Temporal dev server (SQLite file, UI on 8233)
 * unless TEMPORAL_ADDRESS is set, an embedded Postgres unless DATABASE_URL is set, runs the migrations,
 * seeds a few reviewers, and runs a worker and the API in this process. Ctrl-C stops all of it; the next
 * start finds its data again under DATA_DIR.
 */
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { migrateToLatest } from '../db/migrate';
import { ledgerOrigin, loadConfig } from '../app/config';
import { DEFAULT_ORGANIZATION_ID } from '../domain/common/organizations';
import { migrateDatabase, openDatabase } from '../app/database';
import { issueEveryScopeToken, startApiSide, startWorkerSide } from '../app/stack';
import { closeServer } from '../lib/http-server';
import { createLogger } from '../lib/logger';
import { temporalConnectionOptions, connectWorkerConnection, tracedClientOptions } from '../app/temporal';
import { metricsRegistryOf, serveMetrics, tracingOf } from '../app/observability';
import { ensureSigningKey } from '../services/identity/issuance/key-ring';
import { loadModelSeed } from '../services/models/registry';
import { modelSeed } from '../services/models/seed';
import { ensureLedgerKey } from '../services/ledger/keys';
import { bundleWorkflowsApart, installWorkerRuntime } from '../workers/create-worker';
import { browserBaseUrl, firstEnrollment, withBrowserPasskeys, type FirstEnrollment } from './dev-browser';
import { DEV_REVIEWERS, seedDevReviewers } from './dev-seed';
import { signInPerson } from './sign-in-person';
import { afterAnswerWorkSettled } from '../services/workflow-starts/signals';
import { devSecretsKey } from './dev-secrets-key';
import { startDevMail } from './dev-mail';
import { secretKeysFrom } from '../lib/secret-box';
import { provisionTemporal } from './provision-temporal';
import { startTemporalDevServer, type DevServer } from './temporal-dev-server';

const DEV_TOKEN_TTL_SECONDS = 12 * 60 * 60;
const DEV_ADMIN_SUBJECT = 'dev-admin';
const TEMPORAL_UI_PORT = 8233;
const ORPHAN_CHECK_INTERVAL_MS = 1000;

const cleanups: Array<() => Promise<void>> = [];

async function runCleanups(): Promise<void> {
  for (const cleanup of cleanups.splice(0)) await cleanup().catch(() => undefined);
}

async function main(): Promise<void> {
  const externalTemporal = Boolean(process.env.TEMPORAL_ADDRESS);
  const config = withBrowserPasskeys(loadConfig(process.env));
  const logger = createLogger({ level: config.LOG_LEVEL });
  // One process, one registry and one tracer for the API and the worker; both off unless configured.
  const tracing = tracingOf(config, 'handoff');
  if (tracing) cleanups.push(() => tracing.shutdown());
  const metrics = metricsRegistryOf(config, { api: true, worker: true });
  const dataDir = path.resolve(config.DATA_DIR);
  const say = (line: string) => process.stdout.write(`${line}\n`);
  // Webhook secrets are sealed with SECRETS_ENCRYPTION_KEY; on one machine a generated key under DATA_DIR does.
  if (!config.SECRETS_ENCRYPTION_KEY) {
    const devKey = devSecretsKey(dataDir);
    config.SECRETS_ENCRYPTION_KEY = devKey.key;
    if (devKey.created)
      say(
        `Generated a development secrets encryption key in ${devKey.file} (set SECRETS_ENCRYPTION_KEY in production).`,
      );
  }
  // Development mail: caught by a loopback SMTP server and shown on a page, unless SMTP_URL names a real one.
  let mailPage: string | undefined;
  if (!config.SMTP_URL) {
    const devMail = await startDevMail();
    config.SMTP_URL = devMail.catcher.url;
    mailPage = devMail.pageUrl;
    cleanups.push(() => devMail.close());
  }
  // The embedded Postgres sends no notifications to wake the webhook dispatcher; it polls every second instead.
  if (!config.DATABASE_URL && !process.env.WEBHOOK_DISPATCH_POLL_MS) config.WEBHOOK_DISPATCH_POLL_MS = 1000;

  let temporalServer: DevServer | undefined;
  if (!externalTemporal) {
    const { cli } = await provisionTemporal((message) => say(message));
    say('Starting the Temporal dev server…');
    temporalServer = await startTemporalDevServer({
      cli,
      dataDir,
      port: Number(config.TEMPORAL_ADDRESS.split(':')[1] ?? 7233),
      uiPort: TEMPORAL_UI_PORT,
      namespace: config.TEMPORAL_NAMESPACE,
      yieldToApi: true,
    });
    if (temporalServer.reused)
      say(
        `Took over the Temporal dev server an earlier run left on ${temporalServer.address} (pid ${temporalServer.pid}).`,
      );
    cleanups.unshift(() => temporalServer!.stop());
  }

  const database = await openDatabase(config, { serveEmbedded: true, logger, bounded: true });
  cleanups.unshift(() => database.close());
  const { db } = database;
  say(`Postgres: ${database.description}`);
  if (config.DATABASE_URL) await migrateDatabase(config.DATABASE_URL, logger);
  else await migrateToLatest(db);
  // Private keys are sealed with the secrets key (the generated one above, unless configured).
  const secretKeys = secretKeysFrom(config.SECRETS_ENCRYPTION_KEY, config.SECRETS_ENCRYPTION_PREVIOUS_KEYS);
  await ensureSigningKey(db, { secretKeys, warn: (message) => logger.warn(message) });
  await loadModelSeed(db, modelSeed());
  const ledgerKey = await ensureLedgerKey(db, ledgerOrigin(config), (message) => logger.warn(message), secretKeys);
  await seedDevReviewers(db);

  installWorkerRuntime(logger, { handleSignals: false, metricsBindAddress: config.TEMPORAL_METRICS_BIND_ADDRESS });
  const workerConnection = await connectWorkerConnection(config);
  cleanups.unshift(() => workerConnection.close());
  const workflowBundle = await bundleWorkflowsApart(undefined, { traced: tracing !== undefined });
  // Webhook deliveries start from the outbox: its dispatcher runs beside the worker, woken by commits on a Postgres server.
  const workerSide = await startWorkerSide({
    config,
    db,
    connection: workerConnection,
    workflowBundle,
    logger,
    databaseUrl: config.DATABASE_URL,
    tracing,
  });

  const connection = await Connection.connect(temporalConnectionOptions(config));
  cleanups.unshift(() => connection.close());
  // Runs before the connection closes: the signals this process is delivering get a moment to go out.
  cleanups.unshift(() => afterAnswerWorkSettled(5000));
  const temporal = new Client({
    connection,
    namespace: config.TEMPORAL_NAMESPACE,
    ...tracedClientOptions(tracing !== undefined),
  });
  const api = await startApiSide(config, { db, temporal, logger, metrics, tracing });
  const metricsServer = await serveMetrics(config, metrics, { logger, worker: true });
  if (metricsServer) cleanups.unshift(() => closeServer(metricsServer));

  const token = await issueEveryScopeToken(db, config, {
    subject: DEV_ADMIN_SUBJECT,
    ttlSeconds: DEV_TOKEN_TTL_SECONDS,
  });
  // Human acts need a person: Ada, the first seeded reviewer, signed in with a device key of her own.
  const reviewer = DEV_REVIEWERS[0]!;
  const reviewerSession = await signInPerson(db, config, reviewer.did);
  // The same reviewer in a browser: a passkey enrolled from this link, as an administrator would send it.
  const enrollment = await firstEnrollment(api.deps, DEFAULT_ORGANIZATION_ID, {
    user_name: reviewer.did.split(':').at(-1)!,
    display_name: reviewer.display_name,
    reviewer_did: reviewer.did,
  });
  const base = browserBaseUrl(config);
  say(
    [
      '',
      'Handoff is running.',
      `  API          ${base}`,
      `  API docs     ${base}/docs`,
      `  Inbox        ${base}/inbox`,
      ...(mailPage ? [`  Mail         ${mailPage} (development mail, caught here)`] : []),
      `  Temporal UI  ${temporalServer?.uiUrl ?? `(external Temporal at ${config.TEMPORAL_ADDRESS})`}`,
      ...(metricsServer ? [`  Metrics      http://${config.METRICS_HOST}:${String(config.METRICS_PORT)}/metrics`] : []),
      `  Ledger key   ${ledgerKey.verifierKey}`,
      '',
      `Dev admin token (all scopes, valid ${DEV_TOKEN_TTL_SECONDS / 3600} h; mint more with \`npm run token -- --scopes …\`):`,
      `  ${token}`,
      '',
      `Session of ${DEV_REVIEWERS[0]!.display_name}, a signed-in reviewer for human acts (resolve, respond; 4 h):`,
      `  ${reviewerSession}`,
      '',
      ...enrollmentLines(reviewer.display_name, enrollment),
      '',
      'Press Ctrl-C to stop.',
      '',
    ].join('\n'),
  );

  const stop = async (signal: string) => {
    say(`\n${signal}: stopping…`);
    await api.stop();
    await workerSide.stop();
    await runCleanups();
    say('Stopped.');
    process.exit(0);
  };
  process.once('SIGINT', (signal) => void stop(signal));
  process.once('SIGTERM', (signal) => void stop(signal));
  // npm does not pass SIGTERM on to its script: when whoever started us goes away, stop as if signalled,
  // rather than leave the Temporal server and the embedded Postgres running with nobody to stop them.
  const parent = process.ppid;
  const orphanWatch = setInterval(() => {
    if (process.ppid === parent) return;
    clearInterval(orphanWatch);
    void stop('parent process exited');
  }, ORPHAN_CHECK_INTERVAL_MS);
  orphanWatch.unref();
}

function enrollmentLines(name: string, enrollment: FirstEnrollment): string[] {
  if (enrollment.state === 'enrolled')
    return [`${name} has a passkey (Passport ${enrollment.passport_id}); sign in with it in the browser.`];
  return [
    `${name}'s passkey: open this enrollment link in a browser (valid until ${enrollment.expires_at.toISOString()}):`,
    `  ${enrollment.url}`,
  ];
}

main().catch(async (error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  await runCleanups();
  process.exit(1);
});

import { tokenRefresherWorkflowId } from '../../contracts/refresh-connector-tokens';
import { randomBytes } from 'node:crypto';
import { readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Client, Connection, WorkflowNotFoundError, type WorkflowHandle } from '@temporalio/client';
import { NativeConnection, type Worker, type WorkflowBundleWithSourceMap } from '@temporalio/worker';
import { outboxDispatcherId } from '../../contracts/dispatch-outbox';
import { seedDevReviewers } from '../../scripts/dev-seed';
import { ledgerOrigin, loadConfig, type Config } from '../../app/config';
import { startApiSide, startWorkerSide, type RunningWorker } from '../../app/stack';
import { createLogger } from '../../lib/logger';
import { startMailCatcher, type MailCatcher } from '../../lib/mail/catcher';
import { reservePort } from '../../lib/http-server';
import { createKeyRing, ensureSigningKey } from '../../services/identity/issuance/key-ring';
import { issueAccessToken } from '../../services/identity/issuance/access-tokens';
import { SCOPES } from '../../services/identity/scopes';
import { registerTokenSubject } from '../../services/identity/issuance/subjects';
import { ensureLedgerKey } from '../../services/ledger/keys';
import { ledgerSealerWorkflowId } from '../../services/ledger/sealer';
import { bundleWorkflows } from '../../workers/create-worker';
import { createTestDatabase, type TestDatabase } from './database';
import { DEFAULT_ORGANIZATION_ID } from '../../domain/common/organizations';
import { afterAnswerWorkSettled } from '../../services/workflow-starts/signals';
import { eventually } from './eventually';

let bundle: Promise<WorkflowBundleWithSourceMap> | undefined;
/**
 * Bundled once per test run (~4 s of webpack per file otherwise) and shared by the files' workers: the
 * first file of a jest worker to need it without finding it in the run's directory bundles and leaves it there.
 */
export function sharedWorkflowBundle(): Promise<WorkflowBundleWithSourceMap> {
  bundle ??= runBundle();
  return bundle;
}

async function runBundle(): Promise<WorkflowBundleWithSourceMap> {
  const dir = process.env.HANDOFF_TEST_RUN_DIR;
  if (!dir) return bundleWorkflows();
  const file = join(dir, 'workflow-bundle.json');
  const kept = await readFile(file, 'utf8').catch(() => undefined);
  if (kept) return JSON.parse(kept) as WorkflowBundleWithSourceMap;
  const made = await bundleWorkflows();
  // Renamed into place whole, so that another jest worker never reads half a file.
  const partial = `${file}.${process.pid}`;
  await writeFile(partial, JSON.stringify(made));
  await rename(partial, file);
  return made;
}

export function devServerAddress(): string {
  const address = process.env.HANDOFF_TEST_TEMPORAL_ADDRESS;
  if (!address)
    throw new Error(
      'The Temporal dev server of the test run is not up (jest globalSetup sets HANDOFF_TEST_TEMPORAL_ADDRESS)',
    );
  return address;
}

export interface Stack {
  baseUrl: string;
  config: Config;
  database: TestDatabase;
  temporal: Client;
  taskQueue: string;
  worker: Worker;
  /** The stack's SMTP server (SMTP_URL points at it unless the test sets one): read the mail the service sent. */
  mail: MailCatcher;
  /** A JWT from the deployment key with the given scopes (all of them by default), in the default organization unless named. */
  token(scopes?: readonly string[], subject?: string, organizationId?: string): Promise<string>;
  /** Starts a worker again after stopWorker, as a restarted process would. */
  startWorker(): Promise<void>;
  stopWorker(): Promise<void>;
  /**
   * The handle of a workflow once it exists: a routing or an approval is answered at commit and its workflow
   * started behind the answer, so a test that reads the workflow right after the answer waits for its start.
   */
  startedWorkflow(workflowId: string): Promise<WorkflowHandle>;
  stop(): Promise<void>;
}

/**
 * The real service for HTTP tests: its own database, the run's Temporal dev server with a task queue of
 * its own, an in-process worker, and the app from buildApp listening on a free port.
 */
export async function startStack(env: Record<string, string> = {}): Promise<Stack> {
  const taskQueue = `test-${randomBytes(6).toString('hex')}`;
  // Known before the API listens, so that the worker can give agents the URL they report progress to.
  const { server: reserved, port } = await reservePort('127.0.0.1');
  const mail = await startMailCatcher();
  // Blocks sealed within a fraction of a second, so tests read proofs soon after they append.
  const config = loadConfig({
    TEMPORAL_ADDRESS: devServerAddress(),
    TEMPORAL_TASK_QUEUE: taskQueue,
    PORT: String(port),
    PUBLIC_BASE_URL: `http://127.0.0.1:${port}`,
    LOG_LEVEL: 'error',
    LEDGER_BLOCK_MAX_AGE_MS: '100',
    // A test that stops its worker and starts another waits this long for the stopped one's workflows.
    TEMPORAL_WORKER_STICKY_QUEUE_TIMEOUT_MS: '1000',
    // Webhook signing secrets are sealed with a key; each stack has its own unless the test sets one.
    SECRETS_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
    SMTP_URL: mail.url,
    ...env,
  });
  const logger = createLogger({ level: config.LOG_LEVEL, silent: !process.env.HANDOFF_TEST_LOGS });
  const database = await createTestDatabase();
  await ensureSigningKey(database.db);
  await seedDevReviewers(database.db);
  await ensureLedgerKey(database.db, ledgerOrigin(config));

  const nativeConnection = await NativeConnection.connect({ address: config.TEMPORAL_ADDRESS });
  const workflowBundle = await sharedWorkflowBundle();
  // As the worker entry does: the outbox dispatcher beside the worker, woken on commits.
  const databaseUrl = database.embedded ? undefined : database.url;
  let workerSide: RunningWorker | undefined;
  const startWorker = async () => {
    workerSide = await startWorkerSide({
      config,
      db: database.db,
      connection: nativeConnection,
      workflowBundle,
      logger,
      databaseUrl,
    });
  };
  const stopWorker = async () => {
    await workerSide?.stop();
  };
  await startWorker();

  const connection = await Connection.connect({ address: config.TEMPORAL_ADDRESS });
  const temporal = new Client({ connection, namespace: config.TEMPORAL_NAMESPACE });
  const api = await startApiSide(config, {
    db: database.db,
    temporal,
    logger,
    listenUrl: databaseUrl,
    host: '127.0.0.1',
    reserved,
    settings: { publicBaseUrl: 'http://127.0.0.1' },
  });
  const keyRing = createKeyRing(database.db);

  return {
    baseUrl: `http://127.0.0.1:${config.PORT}`,
    config,
    database,
    temporal,
    taskQueue,
    mail,
    get worker() {
      return workerSide!.worker;
    },
    token: async (scopes = [...SCOPES], subject = 'test-user', organizationId = DEFAULT_ORGANIZATION_ID) => {
      // Such a token holds only what its subject is registered for, as the dev admin's does.
      await registerTokenSubject(database.db, { subject, organizationId, scopes });
      return issueAccessToken(keyRing, api.deps.settings.token, { subject, scopes, organizationId, ttlSeconds: 600 });
    },
    startWorker,
    stopWorker,
    async startedWorkflow(workflowId) {
      const handle = temporal.workflow.getHandle(workflowId);
      await eventually(
        () =>
          handle.describe().then(
            () => true,
            (error: unknown) => {
              if (error instanceof WorkflowNotFoundError) return false;
              throw error;
            },
          ),
        (started) => started,
      );
      return handle;
    },
    async stop() {
      await api.stop();
      await stopWorker();
      // The dispatcher, the sealer and the token refresher would otherwise keep their timers on the run's shared dev server.
      for (const workflowId of [
        outboxDispatcherId(taskQueue),
        ledgerSealerWorkflowId(taskQueue),
        tokenRefresherWorkflowId(taskQueue),
      ]) {
        await temporal.workflow
          .getHandle(workflowId)
          .terminate('test stack stopped')
          .catch(() => undefined);
      }
      await afterAnswerWorkSettled(10_000);
      await nativeConnection.close();
      await connection.close();
      await database.destroy();
      await mail.close();
    },
  };
}

/** A stack's start or stop on a loaded machine (the workflow bundle is built by the first): past jest's per-test timeout. */
const STACK_HOOK_TIMEOUT_MS = 180_000;

/**
 * The file's stack, started before its tests and stopped after them: `const stack = useStack();` at the top
 * level of a test file. The returned object reads through to the started stack.
 */
export function useStack(env: Record<string, string> = {}): Stack {
  let starting: Promise<Stack> | undefined;
  let started: Stack | undefined;
  beforeAll(async () => {
    starting = startStack(env);
    started = await starting;
  }, STACK_HOOK_TIMEOUT_MS);
  // A start that outlived beforeAll's timeout is waited for and stopped: left running, its worker, pools and
  // connections kept the jest process from exiting.
  afterAll(async () => {
    const stack = await starting?.catch(() => undefined);
    await stack?.stop();
  }, STACK_HOOK_TIMEOUT_MS);
  return new Proxy({} as Stack, {
    get(_target, key) {
      if (!started) throw new Error('the stack starts in beforeAll: read it inside a test or hook');
      const value: unknown = Reflect.get(started, key);
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(started) : value;
    },
  });
}

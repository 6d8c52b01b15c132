import { fork } from 'node:child_process';
import path from 'node:path';
import { Client } from '@temporalio/client';
import { bundleWorkflowCode, NativeConnection, Runtime, Worker, type WorkflowBundleWithSourceMap } from '@temporalio/worker';
import type { Knex } from 'knex';
import { createActivities } from '../activities';
import type { WorkerSettings } from '../activities/settings';
import type { Logger } from '../lib/logger';

export const WORKFLOWS_PATH = path.join(__dirname, '..', 'workflows', 'index');

/** Bundling takes seconds; build it once per process and share it between workers. */
export async function bundleWorkflows(workflowsPath: string = require.resolve(WORKFLOWS_PATH)): Promise<WorkflowBundleWithSourceMap> {
  return bundleWorkflowCode({ workflowsPath, logger: quietBundlerLogger });
}

/**
 * The bundle made in a child process: the bundler's memory (hundreds of MB, which a heap once grown keeps)
 * goes with that process instead of staying in a long-running worker's.
 */
export function bundleWorkflowsApart(workflowsPath?: string): Promise<WorkflowBundleWithSourceMap> {
  return new Promise((resolve, reject) => {
    const entry = require.resolve('./bundle-workflows');
    // From the sources (npm start, tests) the child needs tsx's loader, whatever loaded this process's.
    const execArgv = entry.endsWith('.ts') ? ['--import', 'tsx'] : [];
    const child = fork(entry, workflowsPath ? [workflowsPath] : [], { execArgv, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    let bundle: WorkflowBundleWithSourceMap | undefined;
    child.once('message', (message) => {
      bundle = message as WorkflowBundleWithSourceMap;
    });
    child.once('error', reject);
    child.once('exit', (code, signal) => {
      if (bundle && code === 0) resolve(bundle);
      else reject(new Error(`bundling the workflows failed (${signal ?? `exit code ${String(code)}`})`));
    });
  });
}

const quietBundlerLogger = { log() {}, trace() {}, debug() {}, info() {}, warn() {}, error() {} };

export interface WorkerDeps {
  connection: NativeConnection;
  namespace: string;
  taskQueue: string;
  db: Knex;
  workflowBundle: WorkflowBundleWithSourceMap;
  settings: WorkerSettings;
  logger: Logger;
}

export async function createWorker(deps: WorkerDeps): Promise<Worker> {
  return Worker.create({
    connection: deps.connection,
    namespace: deps.namespace,
    taskQueue: deps.taskQueue,
    workflowBundle: deps.workflowBundle,
    activities: createActivities({ db: deps.db, settings: deps.settings, logger: deps.logger, temporal: new Client({ connection: deps.connection, namespace: deps.namespace }) }),
    ...(deps.settings.maxCachedWorkflows !== undefined ? { maxCachedWorkflows: deps.settings.maxCachedWorkflows } : {}),
  });
}

/** Routes the SDK's own logs (worker, workflow and activity) into our JSON logger, once per process. */
export function installWorkerRuntime(logger: Logger, options: { handleSignals?: boolean } = {}): void {
  // Checked before the call: winston would build the entry (and copy the SDK's metadata) only to drop it.
  const forward = (level: 'error' | 'warn' | 'info' | 'debug') => (message: string, meta?: Record<string, unknown>) => {
    if (logger.isLevelEnabled(level)) logger.log(level, message, { component: 'temporal', ...meta });
  };
  Runtime.install({
    // A supervisor that stops the worker itself asks the SDK to leave SIGINT and SIGTERM alone.
    ...(options.handleSignals === false ? { shutdownSignals: [] } : {}),
    logger: {
      log: (level, message, meta) => forward(level === 'TRACE' ? 'debug' : (level.toLowerCase() as 'error' | 'warn' | 'info' | 'debug'))(message, meta),
      trace: forward('debug'),
      debug: forward('debug'),
      info: forward('info'),
      warn: forward('warn'),
      error: forward('error'),
    },
  });
}

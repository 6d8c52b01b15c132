import { fork } from 'node:child_process';
import path from 'node:path';
import { Client } from '@temporalio/client';
import {
  bundleWorkflowCode,
  NativeConnection,
  Runtime,
  Worker,
  type WorkerOptions,
  type WorkflowBundleWithSourceMap,
} from '@temporalio/worker';
import {
  makeWorkflowExporter,
  OpenTelemetryActivityInboundInterceptor,
  OpenTelemetryActivityOutboundInterceptor,
} from '@temporalio/interceptors-opentelemetry';
import type { Knex } from 'knex';
import { createActivities } from '../activities';
import type { WorkerSettings } from '../activities/settings';
import type { Logger } from '../lib/logger';
import type { Mailer } from '../lib/mail/transport';
import type { SmsSender } from '../lib/sms/sender';
import type { Tracing } from '../lib/tracing';

export const WORKFLOWS_PATH = path.join(__dirname, '..', 'workflows', 'index');

/**
 * The OpenTelemetry interceptors inside the workflow sandbox: a span per workflow run, signal, update and
 * activity scheduled, with the trace context carried to the activities in their headers. Bundled only for
 * a traced worker, since its spans leave the sandbox through a sink that only a traced worker installs.
 */
const TRACING_WORKFLOW_INTERCEPTORS = '@temporalio/interceptors-opentelemetry/lib/workflow-interceptors';

/** Bundling takes seconds; build it once per process and share it between workers. */
export async function bundleWorkflows(
  workflowsPath: string = require.resolve(WORKFLOWS_PATH),
  options: { traced?: boolean } = {},
): Promise<WorkflowBundleWithSourceMap> {
  const workflowInterceptorModules = options.traced ? [require.resolve(TRACING_WORKFLOW_INTERCEPTORS)] : [];
  return bundleWorkflowCode({ workflowsPath, workflowInterceptorModules, logger: quietBundlerLogger });
}

/**
 * The bundle made in a child process: the bundler's memory (hundreds of MB, which a heap once grown keeps)
 * goes with that process instead of staying in a long-running worker's.
 */
export function bundleWorkflowsApart(
  workflowsPath?: string,
  options: { traced?: boolean } = {},
): Promise<WorkflowBundleWithSourceMap> {
  return new Promise((resolve, reject) => {
    const entry = require.resolve('./bundle-workflows');
    // From the sources (npm start, tests) the child needs tsx's loader, whatever loaded this process's.
    const execArgv = entry.endsWith('.ts') ? ['--import', 'tsx'] : [];
    const args = [...(workflowsPath ? [workflowsPath] : []), ...(options.traced ? [TRACED_FLAG] : [])];
    const child = fork(entry, args, { execArgv, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
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

/** The argument that asks bundle-workflows.ts for a traced bundle. */
export const TRACED_FLAG = '--traced';

const quietBundlerLogger = { log() {}, trace() {}, debug() {}, info() {}, warn() {}, error() {} };

/** A worker's own concurrency budget: its workflow task slots, local activity slots and cache. */
export type WorkerBudget = Pick<
  WorkerOptions,
  | 'maxCachedWorkflows'
  | 'maxConcurrentWorkflowTaskExecutions'
  | 'maxConcurrentLocalActivityExecutions'
  | 'stickyQueueScheduleToStartTimeout'
>;

export interface WorkerDeps {
  connection: NativeConnection;
  namespace: string;
  taskQueue: string;
  db: Knex;
  workflowBundle: WorkflowBundleWithSourceMap;
  settings: WorkerSettings;
  logger: Logger;
  /** Given, it replaces the SDK's defaults (and settings.maxCachedWorkflows). */
  budget?: WorkerBudget | undefined;
  /** What activities send mail through (recovery notifications and codes); the caller closes it. */
  mailer: Mailer;
  /** What activities send texts through (recovery notifications to sms guardians and the owner's phone). */
  sms: SmsSender;
  /** Given, activities and workflows are traced; the workflow bundle must then be a traced one (bundleWorkflows). */
  tracing?: Pick<Tracing, 'spanProcessor' | 'resource'> | undefined;
}

export async function createWorker(deps: WorkerDeps): Promise<Worker> {
  return Worker.create({
    connection: deps.connection,
    namespace: deps.namespace,
    taskQueue: deps.taskQueue,
    workflowBundle: deps.workflowBundle,
    activities: createActivities({
      db: deps.db,
      settings: deps.settings,
      logger: deps.logger,
      mailer: deps.mailer,
      sms: deps.sms,
      temporal: new Client({ connection: deps.connection, namespace: deps.namespace }),
    }),
    ...(deps.settings.maxCachedWorkflows !== undefined ? { maxCachedWorkflows: deps.settings.maxCachedWorkflows } : {}),
    ...deps.budget,
    ...(deps.tracing ? tracedWorkerOptions(deps.tracing) : {}),
  });
}

/** An activity span per attempt, a child of the workflow's span that scheduled it; the workflow's spans leave the sandbox through the exporter sink. */
function tracedWorkerOptions(
  tracing: Pick<Tracing, 'spanProcessor' | 'resource'>,
): Pick<WorkerOptions, 'interceptors' | 'sinks'> {
  return {
    interceptors: {
      activity: [
        (ctx) => ({
          inbound: new OpenTelemetryActivityInboundInterceptor(ctx),
          outbound: new OpenTelemetryActivityOutboundInterceptor(ctx),
        }),
      ],
    },
    sinks: { exporter: makeWorkflowExporter(tracing.spanProcessor, tracing.resource) },
  };
}

/**
 * Routes the SDK's own logs (worker, workflow and activity) into our JSON logger, once per process (the SDK
 * allows one runtime); with metricsBindAddress, the SDK serves its worker metrics there in Prometheus's format.
 */
export function installWorkerRuntime(
  logger: Logger,
  options: { handleSignals?: boolean; metricsBindAddress?: string | undefined } = {},
): void {
  // Checked before the call: winston would build the entry (and copy the SDK's metadata) only to drop it.
  const forward = (level: 'error' | 'warn' | 'info' | 'debug') => (message: string, meta?: Record<string, unknown>) => {
    if (logger.isLevelEnabled(level)) logger.log(level, message, { component: 'temporal', ...meta });
  };
  Runtime.install({
    // A supervisor that stops the worker itself asks the SDK to leave SIGINT and SIGTERM alone.
    ...(options.handleSignals === false ? { shutdownSignals: [] } : {}),
    // Prometheus's conventions: seconds, with the unit and _total in the name (temporal_workflow_task_schedule_to_start_latency_seconds).
    ...(options.metricsBindAddress
      ? {
          telemetryOptions: {
            metrics: {
              prometheus: {
                bindAddress: options.metricsBindAddress,
                countersTotalSuffix: true,
                unitSuffix: true,
                useSecondsForDurations: true,
              },
            },
          },
        }
      : {}),
    logger: {
      log: (level, message, meta) =>
        forward(level === 'TRACE' ? 'debug' : (level.toLowerCase() as 'error' | 'warn' | 'info' | 'debug'))(
          message,
          meta,
        ),
      trace: forward('debug'),
      debug: forward('debug'),
      info: forward('info'),
      warn: forward('warn'),
      error: forward('error'),
    },
  });
}

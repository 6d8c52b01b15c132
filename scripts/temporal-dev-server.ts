import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { Connection } from '@temporalio/client';
import type { SearchAttributeType } from '@temporalio/common';
import { ALL_SEARCH_ATTRIBUTES } from '../contracts/search-attributes';
import { portAnswers } from '../lib/net';
import { isAlive, STOP_GRACE_MS, stopPid, watchParent } from './child-lifecycle';

const SEARCH_ATTRIBUTE_TYPE_NAMES: Record<SearchAttributeType, string> = {
  KEYWORD: 'Keyword',
  DOUBLE: 'Double',
  TEXT: 'Text',
  INT: 'Int',
  BOOL: 'Bool',
  DATETIME: 'Datetime',
  KEYWORD_LIST: 'KeywordList',
};

export interface DevServer {
  address: string;
  uiUrl: string;
  pid: number;
  /** True when a healthy server of ours, left by an earlier run, was taken over instead of starting one. */
  reused: boolean;
  stop(): Promise<void>;
}

/** The file beside the SQLite file that names the server serving it, so that the next start can find it. */
export const PID_FILE = 'temporal-dev-server.json';

interface PidRecord {
  pid: number;
  port: number;
  db_filename: string;
}

/** Where /proc tells (Linux), whether the process is still a dev server of that file; elsewhere the pid file is trusted. */
function runsDevServerOf(pid: number, dbFilename: string): boolean {
  try {
    const commandLine = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
    return commandLine.includes('start-dev') && commandLine.includes(dbFilename);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code !== 'ENOENT' || !existsProc();
  }
}

function existsProc(): boolean {
  try {
    readFileSync('/proc/self/cmdline');
    return true;
  } catch {
    return false;
  }
}

async function serves(address: string, timeoutMs: number): Promise<boolean> {
  let connection: Connection | undefined;
  try {
    connection = await Connection.connect({ address, connectTimeout: timeoutMs });
    await connection.withDeadline(Date.now() + timeoutMs, () => connection!.workflowService.getSystemInfo({}));
    return true;
  } catch {
    return false;
  } finally {
    await connection?.close().catch(() => undefined);
  }
}

async function waitUntilPortFree(port: number, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (await portAnswers(port)) {
    if (Date.now() > deadline)
      throw new Error(`port ${port} is still taken ${timeoutMs} ms after its server was stopped`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

function readPidRecord(file: string): PidRecord | undefined {
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as PidRecord;
  } catch {
    return undefined;
  }
}

/**
 * What an earlier run left on the port: its own healthy server is taken over, its own unhealthy one stopped;
 * anything else on the port is an error that names it.
 */
async function reclaim(options: {
  port: number;
  pidFile?: string;
  dbFilename?: string;
}): Promise<PidRecord | undefined> {
  const record = options.pidFile ? readPidRecord(options.pidFile) : undefined;
  const ours =
    record &&
    options.dbFilename &&
    record.port === options.port &&
    isAlive(record.pid) &&
    runsDevServerOf(record.pid, options.dbFilename)
      ? record
      : undefined;
  if (record && !ours && options.pidFile) rmSync(options.pidFile, { force: true });
  if (ours) {
    if (await serves(`127.0.0.1:${options.port}`, 2000)) return ours;
    await stopPid(ours.pid);
    rmSync(options.pidFile!, { force: true });
    await waitUntilPortFree(options.port, STOP_GRACE_MS);
  }
  if (await portAnswers(options.port)) {
    throw new Error(
      `Port ${options.port} is taken by a process that is not this data folder's Temporal dev server; stop it, or set TEMPORAL_ADDRESS to use it`,
    );
  }
  return undefined;
}

async function waitUntilServing(address: string, child: ChildProcess, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`temporal server exited with code ${child.exitCode} before it served`);
    try {
      const connection = await Connection.connect({ address, connectTimeout: 1000 });
      await connection.workflowService.getSystemInfo({});
      await connection.close();
      return;
    } catch (error) {
      lastError = error;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }
  throw new Error(
    `temporal server did not serve within ${timeoutMs} ms: ${lastError instanceof Error ? lastError.message : String(lastError)}`,
  );
}

/**
 * SQLite in write-ahead-log mode, synced at checkpoints rather than at every commit: about twice the
 * throughput of the default journal. A power cut may lose the dev server's last transactions; production
 * runs a Temporal cluster, not this server.
 */
export const DEV_SERVER_SQLITE_PRAGMAS = ['journal_mode=wal', 'synchronous=normal'] as const;

/**
 * The niceness of a dev server that yields to the API (`nice`, inherited by every thread): on one machine the
 * workflow work behind an answer at commit can wait while the API answers the next request.
 */
export const DEV_SERVER_NICENESS = 10;

/**
 * The Temporal CLI's dev server with its Web UI, persisting to a SQLite file (DEV_SERVER_SQLITE_PRAGMAS),
 * with our search attributes registered and Update-with-Start enabled.
 */
export async function startTemporalDevServer(options: {
  cli: string;
  /** Where the SQLite file lives; in memory when omitted. */
  dataDir?: string;
  port: number;
  /** The Web UI's port; no UI when omitted. */
  uiPort?: number;
  namespace: string;
  /** Drop the server's own error lines (a drill that kills its clients makes many). */
  quiet?: boolean;
  /** Run it below normal CPU priority (DEV_SERVER_NICENESS), so that on one machine the API answers first. */
  yieldToApi?: boolean;
}): Promise<DevServer> {
  const dbFilename = options.dataDir ? path.resolve(options.dataDir, 'temporal.db') : undefined;
  const pidFile = options.dataDir ? path.resolve(options.dataDir, PID_FILE) : undefined;
  if (options.dataDir) mkdirSync(options.dataDir, { recursive: true });
  const address = `127.0.0.1:${options.port}`;
  const uiUrl = options.uiPort ? `http://127.0.0.1:${options.uiPort}` : '';
  const stale = await reclaim({ port: options.port, pidFile, dbFilename });
  if (stale) {
    watchParent(stale.pid);
    return {
      address,
      uiUrl,
      pid: stale.pid,
      reused: true,
      stop: async () => {
        await stopPid(stale.pid);
        if (pidFile) rmSync(pidFile, { force: true });
      },
    };
  }
  const args = [
    'server',
    'start-dev',
    ...(dbFilename ? ['--db-filename', dbFilename] : []),
    ...DEV_SERVER_SQLITE_PRAGMAS.flatMap((pragma) => ['--sqlite-pragma', pragma]),
    '--ip',
    '127.0.0.1',
    '--port',
    String(options.port),
    ...(options.uiPort ? ['--ui-port', String(options.uiPort)] : ['--headless']),
    '--namespace',
    options.namespace,
    '--log-level',
    'error',
    '--dynamic-config-value',
    'frontend.enableExecuteMultiOperation=true',
    // Fairness keys (a delivery's organization) are honoured only where the server enables them.
    '--dynamic-config-value',
    'matching.enableFairness=true',
    ...ALL_SEARCH_ATTRIBUTES.flatMap((key) => [
      '--search-attribute',
      `${key.name}=${SEARCH_ATTRIBUTE_TYPE_NAMES[key.type]}`,
    ]),
  ];
  const [command, commandArgs] = options.yieldToApi
    ? ['nice', ['-n', String(DEV_SERVER_NICENESS), options.cli, ...args]]
    : [options.cli, args];
  const child = spawn(command, commandArgs, { stdio: ['ignore', 'ignore', options.quiet ? 'ignore' : 'inherit'] });
  const pid = child.pid;
  if (pid === undefined) throw new Error(`could not start ${options.cli}`);
  watchParent(pid);
  if (pidFile && dbFilename)
    writeFileSync(pidFile, JSON.stringify({ pid, port: options.port, db_filename: dbFilename } satisfies PidRecord));
  try {
    await waitUntilServing(address, child, 60_000);
  } catch (error) {
    child.kill('SIGTERM');
    throw error;
  }
  return {
    address,
    uiUrl,
    pid,
    reused: false,
    stop: async () => {
      await new Promise<void>((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) {
          resolve();
          return;
        }
        const force = setTimeout(() => child.kill('SIGKILL'), STOP_GRACE_MS);
        child.once('exit', () => {
          clearTimeout(force);
          resolve();
        });
        child.kill('SIGTERM');
      });
      if (pidFile) rmSync(pidFile, { force: true });
    },
  };
}

import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { Connection } from '@temporalio/client';
import type { SearchAttributeType } from '@temporalio/common';
import { ALL_SEARCH_ATTRIBUTES } from '../contracts/search-attributes';

const SEARCH_ATTRIBUTE_TYPE_NAMES: Record<SearchAttributeType, string> = { KEYWORD: 'Keyword', DOUBLE: 'Double', TEXT: 'Text', INT: 'Int', BOOL: 'Bool', DATETIME: 'Datetime', KEYWORD_LIST: 'KeywordList' };

export interface DevServer {
  address: string;
  uiUrl: string;
  process: ChildProcess;
  stop(): Promise<void>;
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
  throw new Error(`temporal server did not serve within ${timeoutMs} ms: ${lastError instanceof Error ? lastError.message : String(lastError)}`);
}

/**
 * SQLite in write-ahead-log mode, synced at checkpoints rather than at every commit: about twice the
 * throughput of the default journal. A power cut may lose the dev server's last transactions; production
 * runs a Temporal cluster, not this server.
 */
export const DEV_SERVER_SQLITE_PRAGMAS = ['journal_mode=wal', 'synchronous=normal'] as const;

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
}): Promise<DevServer> {
  if (options.dataDir) mkdirSync(options.dataDir, { recursive: true });
  const args = [
    'server',
    'start-dev',
    ...(options.dataDir ? ['--db-filename', path.join(options.dataDir, 'temporal.db')] : []),
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
    ...ALL_SEARCH_ATTRIBUTES.flatMap((key) => ['--search-attribute', `${key.name}=${SEARCH_ATTRIBUTE_TYPE_NAMES[key.type]}`]),
  ];
  const child = spawn(options.cli, args, { stdio: ['ignore', 'ignore', 'inherit'] });
  const address = `127.0.0.1:${options.port}`;
  try {
    await waitUntilServing(address, child, 60_000);
  } catch (error) {
    child.kill('SIGTERM');
    throw error;
  }
  return {
    address,
    uiUrl: options.uiPort ? `http://127.0.0.1:${options.uiPort}` : '',
    process: child,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) {
          resolve();
          return;
        }
        const force = setTimeout(() => child.kill('SIGKILL'), 10_000);
        child.once('exit', () => {
          clearTimeout(force);
          resolve();
        });
        child.kill('SIGTERM');
      }),
  };
}

import type { Server } from 'node:http';
import type { Client } from '@temporalio/client';
import type { Knex } from 'knex';
import { buildApp } from '../../api/app';
import type { Config } from '../../app/config';
import { createAppDeps } from '../../app/deps';
import { closeServer, listen } from '../../lib/http-server';
import { createLogger } from '../../lib/logger';
import type { Stack } from './stack';

export interface ExtraApp {
  baseUrl: string;
  close(): Promise<void>;
}

/**
 * Another API instance beside a stack's, built by buildApp the way startStack builds its own: by default
 * on the same database and Temporal client, with the same settings; any of them can be swapped for the case
 * under test (a dead database, a closed Temporal connection, a different config).
 */
export async function startExtraApp(stack: Stack, options: { db?: Knex; temporal?: Client; config?: Partial<Config> } = {}): Promise<ExtraApp> {
  const config: Config = { ...stack.config, ...options.config };
  const logger = createLogger({ level: config.LOG_LEVEL, silent: !process.env.HANDOFF_TEST_LOGS });
  const deps = createAppDeps(config, { db: options.db ?? stack.database.db, temporal: options.temporal ?? stack.temporal, logger });
  const app = buildApp({ ...deps, settings: { ...deps.settings, publicBaseUrl: 'http://127.0.0.1' } });
  const server: Server = await listen(app, { host: '127.0.0.1', port: 0 });
  const { port } = server.address() as { port: number };
  return { baseUrl: `http://127.0.0.1:${port}`, close: () => closeServer(server) };
}

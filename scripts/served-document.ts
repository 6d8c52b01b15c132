/**
 * The OpenAPI document the API serves, built here in process: the app is built against a database and a
 * Temporal client that are never connected to, and its /openapi.json is read over loopback.
 */
import type { Server } from 'node:http';
import { Client } from '@temporalio/client';
import knex from 'knex';
import { buildApp } from '../api/app';
import { loadConfig } from '../app/config';
import { closeAppDeps, createAppDeps } from '../app/deps';
import { closeServer, listen } from '../lib/http-server';
import { createLogger } from '../lib/logger';

export async function servedDocument(): Promise<unknown> {
  const config = loadConfig({ DATABASE_URL: 'postgres://offline.invalid/handoff' });
  const db = knex({ client: 'pg', connection: config.DATABASE_URL });
  const deps = createAppDeps(config, {
    db,
    temporal: new Client(),
    logger: createLogger({ level: 'error', silent: true }),
    listenUrl: undefined,
  });
  const server: Server = await listen(buildApp(deps), { host: '127.0.0.1', port: 0 });
  try {
    const { port } = server.address() as { port: number };
    const response = await fetch(`http://127.0.0.1:${port}/openapi.json`);
    if (!response.ok) throw new Error(`/openapi.json answered ${response.status}`);
    return await response.json();
  } finally {
    await closeServer(server);
    await closeAppDeps(deps);
    await db.destroy();
  }
}

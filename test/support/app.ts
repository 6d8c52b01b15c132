import type { Server } from 'node:http';
import { Writable } from 'node:stream';
import type { Client } from '@temporalio/client';
import type { Express } from 'express';
import type { Knex } from 'knex';
import winston from 'winston';
import { buildApp, type AppDeps } from '../../api/app';
import { tokenIssuer, type Config } from '../../app/config';
import { closeAppDeps, createAppDeps } from '../../app/deps';
import { closeServer, listen, reservePort } from '../../lib/http-server';
import { createLogger, type Logger } from '../../lib/logger';
import type { Stack } from './stack';

export interface ExtraAppOptions {
  db?: Knex;
  temporal?: Client;
  config?: Partial<Config>;
  /** Where the app's log lines go; a silent logger by default. */
  logger?: Logger;
}

export interface ExtraApp {
  baseUrl: string;
  close(): Promise<void>;
}

/**
 * Another API instance beside a stack's, built by buildApp the way startStack builds its own: by default
 * on the same database and Temporal client, with the same settings; any of them can be swapped for the case
 * under test (a dead database, a closed Temporal connection, a different config).
 */
export async function startExtraApp(stack: Stack, options: ExtraAppOptions = {}): Promise<ExtraApp> {
  const { app, deps } = stackApp(stack, options);
  const server: Server = await listen(app, { host: '127.0.0.1', port: 0 });
  const { port } = server.address() as { port: number };
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    async close() {
      await closeServer(server);
      await closeAppDeps(deps);
    },
  };
}

/**
 * The Express app buildApp makes for a stack's settings, not listening, and what ends its listeners and timers
 * (which would otherwise outlive the test file and fire in the next one's environment).
 */
export function buildStackApp(
  stack: Stack,
  options: ExtraAppOptions = {},
): { app: Express; close: () => Promise<void> } {
  const { app, deps } = stackApp(stack, options);
  return { app, close: () => closeAppDeps(deps) };
}

/**
 * Another instance of a stack's app served as http://localhost:<port>, for browser tests: a passkey's RP id must be
 * a domain, and localhost is a secure context where 127.0.0.1 is not.
 */
export async function startLocalhostApp(stack: Stack): Promise<ExtraApp> {
  const { server: reserved, port } = await reservePort('127.0.0.1');
  const baseUrl = `http://localhost:${port}`;
  const { app, deps } = stackApp(stack, {
    config: { PUBLIC_BASE_URL: baseUrl, AUTH_ISSUER: tokenIssuer(stack.config) },
  });
  const server = await listen(app, { host: '127.0.0.1', port, reserved });
  return {
    baseUrl,
    async close() {
      await closeServer(server);
      await closeAppDeps(deps);
    },
  };
}

/** The app and its deps (end them with closeAppDeps when done). */
export function stackApp(stack: Stack, options: ExtraAppOptions): { app: Express; deps: AppDeps } {
  const config: Config = { ...stack.config, ...options.config };
  const logger = options.logger ?? createLogger({ level: config.LOG_LEVEL, silent: !process.env.HANDOFF_TEST_LOGS });
  // On the stack's own Postgres server the instance LISTENs for revocations, as a production instance does.
  const listenUrl = options.db || stack.database.embedded ? undefined : stack.database.url;
  const deps = createAppDeps(config, {
    db: options.db ?? stack.database.db,
    temporal: options.temporal ?? stack.temporal,
    logger,
    listenUrl,
  });
  return { app: buildApp({ ...deps, settings: { ...deps.settings, publicBaseUrl: 'http://127.0.0.1' } }), deps };
}

/** The production logger with its lines collected, parsed, instead of printed: for tests of what an SRE reads. */
export function capturingLogger(): { logger: Logger; lines: Array<Record<string, unknown>> } {
  const lines: Array<Record<string, unknown>> = [];
  const sink = new Writable({
    objectMode: true,
    write(info: Record<string | symbol, unknown>, _encoding, done) {
      // winston keeps the formatted line under triple-beam's MESSAGE symbol.
      lines.push(JSON.parse(info[Symbol.for('message')] as string) as Record<string, unknown>);
      done();
    },
  });
  const logger = createLogger({ level: 'info' });
  // eslint-disable-next-line @typescript-eslint/no-unsafe-class-instance-assignment -- winston types its Stream transport as an interface; it is a TransportStream
  logger.clear().add(new winston.transports.Stream({ stream: sink }));
  return { logger, lines };
}

import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Express } from 'express';
import type { Logger } from './logger';

/**
 * A server bound to a port the OS picked, answering nothing until `listen` gives it an app. The port is known
 * before the app that must know its own address is built, with no window in which another socket takes it.
 */
export function reservePort(host: string): Promise<{ server: Server; port: number }> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, host, () => resolve({ server, port: (server.address() as AddressInfo).port }));
  });
}

export function listen(app: Express, options: { host: string; port: number; reserved?: Server }): Promise<Server> {
  if (options.reserved) {
    options.reserved.on('request', app);
    return Promise.resolve(options.reserved);
  }
  return new Promise((resolve, reject) => {
    const server = app.listen(options.port, options.host, (error?: Error) => (error ? reject(error) : resolve(server)));
    server.once('error', reject);
  });
}

/** How long in-flight requests may take to finish once the server stops taking new ones. */
export const DEFAULT_DRAIN_TIMEOUT_MS = 10_000;

export function closeServer(server: Server, drainTimeoutMs = DEFAULT_DRAIN_TIMEOUT_MS): Promise<void> {
  return new Promise((resolve) => {
    // A request that outlives the drain window is cut off, so a stuck client cannot hold shutdown open.
    const deadline = setTimeout(() => server.closeAllConnections(), drainTimeoutMs);
    deadline.unref();
    server.close(() => {
      clearTimeout(deadline);
      resolve();
    });
    // Idle keep-alive sockets would hold close() open; in-flight requests still finish.
    server.closeIdleConnections();
  });
}

/** Serves until SIGINT or SIGTERM, then stops taking requests, lets in-flight ones finish, and cleans up. */
export async function listenUntilSignalled(
  app: Express,
  options: { host: string; port: number; logger: Logger },
  cleanup: () => Promise<void>,
): Promise<void> {
  const server = await listen(app, options);
  options.logger.info('api listening', { host: options.host, port: options.port });
  await new Promise<void>((resolve) => {
    const stop = (signal: string) => {
      options.logger.info('shutting down', { signal });
      closeServer(server)
        .then(cleanup)
        .then(resolve, (error: unknown) => {
          options.logger.error('shutdown failed', { error });
          resolve();
        });
    };
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
}

import knex, { type Knex } from 'knex';
import pg from 'pg';

// Return BIGINT (e.g. count(*)) as a JS number; our counts stay far below 2^53.
pg.types.setTypeParser(pg.types.builtins.INT8, (value: string) => Number(value));
// Keep NUMERIC as number (confidence values); precision beyond double is not needed here.
pg.types.setTypeParser(pg.types.builtins.NUMERIC, (value: string) => Number(value));

export type Db = Knex;

/** Where knex's own warnings go; without one they are printed to the console, outside the JSON logs. */
export interface DbLogSink {
  warn(message: string, meta?: Record<string, unknown>): unknown;
  error(message: string, meta?: Record<string, unknown>): unknown;
}

/** How long the service waits for the database, so that an outage is a prompt error and never a hang. */
export interface DbTimeouts {
  /** Longest wait for a pool connection, connecting a new one included. */
  acquireMs: number;
  /** Server-side statement_timeout; the client gives up a second later should the server not answer at all. */
  statementMs: number;
  /** Server-side idle_in_transaction_session_timeout: a stuck client never holds locks for ever. */
  idleInTransactionMs: number;
}

/** Without timeouts given (tests, admin scripts, migrations): no statement bound, and the pool's old generous wait. */
const UNBOUNDED_ACQUIRE_MS = 30_000;
// The client's own read timeout over the server's statement_timeout, for a server that stopped answering.
const CLIENT_READ_GRACE_MS = 1000;

/** node-postgres's client, as far as dropping one whose statement the client gave up on needs it. */
interface PgClient {
  query: (...args: unknown[]) => unknown;
  connection: { stream: { destroy(): void } };
  __knex__disposed?: unknown;
}

const READ_TIMEOUT_MESSAGE = 'Query read timeout';

/**
 * A statement the client gave up on (query_timeout) may still be running on the server, inside a transaction
 * whose ROLLBACK would wait behind it and be dropped by its own read timeout. So the connection is closed at
 * once, which ends the server's session and its transaction, and marked so that knex never hands it out again.
 */
function dropOnReadTimeout(connection: PgClient, done: (error: Error | null, connection: PgClient) => void): void {
  const query = connection.query.bind(connection);
  connection.query = (...args: unknown[]) => {
    const last = args.length - 1;
    const callback = args[last];
    if (typeof callback === 'function') {
      args[last] = (error: Error | null, ...rest: unknown[]) => {
        if (error?.message === READ_TIMEOUT_MESSAGE && !connection.__knex__disposed) {
          connection.__knex__disposed = error.message;
          connection.connection.stream.destroy();
        }
        return (callback as (...a: unknown[]) => unknown)(error, ...rest);
      };
    }
    return query(...args);
  };
  done(null, connection);
}

export function createDb(options: {
  connectionString: string;
  poolMax: number;
  applicationName?: string;
  logger?: DbLogSink;
  timeouts?: DbTimeouts;
}): Db {
  const { logger, timeouts } = options;
  return knex({
    client: 'pg',
    connection: {
      connectionString: options.connectionString,
      application_name: options.applicationName ?? 'handoff',
      ...(timeouts
        ? {
            connectionTimeoutMillis: timeouts.acquireMs,
            statement_timeout: timeouts.statementMs,
            query_timeout: timeouts.statementMs + CLIENT_READ_GRACE_MS,
            idle_in_transaction_session_timeout: timeouts.idleInTransactionMs,
            keepAlive: true,
          }
        : {}),
    },
    pool: { min: 0, max: options.poolMax, ...(timeouts ? { afterCreate: dropOnReadTimeout } : {}) },
    acquireConnectionTimeout: timeouts?.acquireMs ?? UNBOUNDED_ACQUIRE_MS,
    // A failed statement's message names its SQL with placeholders, never the values bound to it (a key, a secret), since error messages are logged.
    compileSqlOnError: false,
    ...(logger
      ? {
          log: {
            warn: (message: unknown) => logger.warn(String(message), { component: 'knex' }),
            error: (message: unknown) => logger.error(String(message), { component: 'knex' }),
            deprecate: (method: string, alternative: string) =>
              logger.warn(`${method} is deprecated, use ${alternative}`, { component: 'knex' }),
            debug: () => undefined,
          },
        }
      : {}),
  });
}

/**
 * For a transaction that awaits another service between its statements: the server's idle-in-transaction bound
 * (DATABASE_IDLE_IN_TRANSACTION_TIMEOUT_MS for the session) becomes `ms` for this transaction only.
 */
export async function allowIdleInTransaction(trx: Knex.Transaction, ms: number): Promise<void> {
  await trx.raw(`select set_config('idle_in_transaction_session_timeout', ?, true)`, [`${Math.round(ms)}ms`]);
}

export async function pingDb(db: Db): Promise<void> {
  await db.raw('select 1');
}

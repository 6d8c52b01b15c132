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

interface PgClientQueue {
  _activeQuery?: unknown;
  _queryQueue?: unknown[];
}

/**
 * A connection still busy when handed out is one whose query the client gave up on (read timeout): node-postgres
 * keeps it waiting for the server, so the pool drops it rather than queue the next query behind it.
 */
function isIdle(connection: PgClientQueue): boolean {
  return !connection._activeQuery && (connection._queryQueue?.length ?? 0) === 0;
}

export function createDb(options: { connectionString: string; poolMax: number; applicationName?: string; logger?: DbLogSink; timeouts?: DbTimeouts }): Db {
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
    pool: { min: 0, max: options.poolMax, ...(timeouts ? { validate: isIdle } : {}) },
    acquireConnectionTimeout: timeouts?.acquireMs ?? UNBOUNDED_ACQUIRE_MS,
    ...(logger
      ? {
          log: {
            warn: (message: unknown) => logger.warn(String(message), { component: 'knex' }),
            error: (message: unknown) => logger.error(String(message), { component: 'knex' }),
            deprecate: (method: string, alternative: string) => logger.warn(`${method} is deprecated, use ${alternative}`, { component: 'knex' }),
            debug: () => undefined,
          },
        }
      : {}),
  });
}

export async function pingDb(db: Db): Promise<void> {
  await db.raw('select 1');
}

import path from 'node:path';
import { createDb, type Db, type DbLogSink, type DbTimeouts } from '../db/connection';
import { migrateToLatest } from '../db/migrate';
import { startEmbeddedPostgres } from '../db/embedded-postgres';
import type { Config } from './config';
import { portAnswers } from '../lib/net';

export function dbTimeoutsOf(config: Config): DbTimeouts {
  return {
    acquireMs: config.DATABASE_ACQUIRE_TIMEOUT_MS,
    statementMs: config.DATABASE_STATEMENT_TIMEOUT_MS,
    idleInTransactionMs: config.DATABASE_IDLE_IN_TRANSACTION_TIMEOUT_MS,
  };
}

/** Migrations on a connection of their own, without the statement bound that serving requests has. */
export async function migrateDatabase(connectionString: string, logger?: DbLogSink): Promise<string[]> {
  const db = createDb({ connectionString, poolMax: 1, applicationName: 'handoff-migrate', logger });
  try {
    return await migrateToLatest(db);
  } finally {
    await db.destroy();
  }
}

/** An entry point's database: migrated first, then its bounded pool under the process's name. */
export async function openMigratedDatabase(
  connectionString: string,
  config: Config,
  applicationName: string,
  logger: DbLogSink,
): Promise<Db> {
  await migrateDatabase(connectionString, logger);
  return createDb({
    connectionString,
    poolMax: config.DATABASE_POOL_MAX,
    applicationName,
    logger,
    timeouts: dbTimeoutsOf(config),
  });
}

export interface OpenDatabase {
  db: Db;
  /** Where the data lives, for the operator: the URL or the embedded folder. */
  description: string;
  close(): Promise<void>;
}

/**
 * DATABASE_URL when set. Otherwise the embedded Postgres under DATA_DIR: reached over its port when a
 * running `npm start` already serves it (PGlite's folder must have one owner), else started here. `bounded`:
 * DATABASE_URL's connections wait at most the configured timeouts (the embedded one has no server-side timeouts).
 */
export async function openDatabase(
  config: Config,
  options: { serveEmbedded: boolean; logger?: DbLogSink; bounded?: boolean },
): Promise<OpenDatabase> {
  const { logger } = options;
  if (config.DATABASE_URL) {
    const db = createDb({
      connectionString: config.DATABASE_URL,
      poolMax: config.DATABASE_POOL_MAX,
      logger,
      ...(options.bounded ? { timeouts: dbTimeoutsOf(config) } : {}),
    });
    return { db, description: 'DATABASE_URL', close: () => db.destroy() };
  }
  const port = config.EMBEDDED_POSTGRES_PORT;
  const dataDir = path.resolve(config.DATA_DIR, 'pg');
  if (!options.serveEmbedded && (await portAnswers(port))) {
    const db = createDb({
      connectionString: `postgres://postgres@127.0.0.1:${port}/postgres?sslmode=disable`,
      poolMax: 1,
      logger,
    });
    return { db, description: `embedded Postgres served at 127.0.0.1:${port}`, close: () => db.destroy() };
  }
  const embedded = await startEmbeddedPostgres({ dataDir, port });
  const db = createDb({ connectionString: embedded.connectionString, poolMax: embedded.poolMax, logger });
  return {
    db,
    description: `embedded Postgres in ${dataDir}, served at 127.0.0.1:${port}`,
    async close() {
      await db.destroy();
      await embedded.stop();
    },
  };
}

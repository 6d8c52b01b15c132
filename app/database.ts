import path from 'node:path';
import { createDb, type Db, type DbLogSink } from '../db/connection';
import { startEmbeddedPostgres } from '../db/embedded-postgres';
import type { Config } from './config';
import { portAnswers } from '../lib/net';

export interface OpenDatabase {
  db: Db;
  /** Where the data lives, for the operator: the URL or the embedded folder. */
  description: string;
  close(): Promise<void>;
}

/**
 * DATABASE_URL when set. Otherwise the embedded Postgres under DATA_DIR: reached over its port when a
 * running `npm start` already serves it (PGlite's folder must have one owner), else started here.
 */
export async function openDatabase(config: Config, options: { serveEmbedded: boolean; logger?: DbLogSink }): Promise<OpenDatabase> {
  const { logger } = options;
  if (config.DATABASE_URL) {
    const db = createDb({ connectionString: config.DATABASE_URL, poolMax: config.DATABASE_POOL_MAX, logger });
    return { db, description: 'DATABASE_URL', close: () => db.destroy() };
  }
  const port = config.EMBEDDED_POSTGRES_PORT;
  const dataDir = path.resolve(config.DATA_DIR, 'pg');
  if (!options.serveEmbedded && (await portAnswers(port))) {
    const db = createDb({ connectionString: `postgres://postgres@127.0.0.1:${port}/postgres?sslmode=disable`, poolMax: 1, logger });
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

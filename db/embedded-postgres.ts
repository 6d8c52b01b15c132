import { mkdir } from 'node:fs/promises';
import { PGlite } from '@electric-sql/pglite';
import { PGLiteSocketServer } from '@electric-sql/pglite-socket';

export interface EmbeddedPostgres {
  /** A postgres:// URL the ordinary pg driver connects to. */
  connectionString: string;
  /**
   * PGlite is one backend: every connection shares its session, so callers must keep their pool at one
   * connection to keep transactions apart.
   */
  poolMax: 1;
  stop(): Promise<void>;
}

/** PGlite served over the Postgres wire protocol, so the same pg/knex code runs with no server installed. */
export async function startEmbeddedPostgres(options: { dataDir?: string; port?: number }): Promise<EmbeddedPostgres> {
  // No data folder means an in-memory database, gone when it stops.
  if (options.dataDir) await mkdir(options.dataDir, { recursive: true });
  const db = await PGlite.create(options.dataDir);
  const server = new PGLiteSocketServer({ db, host: '127.0.0.1', port: options.port ?? 0, maxConnections: 8 });
  await server.start();
  const address = server.getServerConn();
  return {
    connectionString: `postgres://postgres@${address}/postgres?sslmode=disable`,
    poolMax: 1,
    async stop() {
      await server.stop();
      await db.close();
    },
  };
}

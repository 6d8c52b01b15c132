/** The benchmark's own database: fresh on the local Postgres server when one answers, else embedded. */
import { randomBytes } from 'node:crypto';
import { createDb, type Db } from '../../db/connection';
import { startEmbeddedPostgres } from '../../db/embedded-postgres';
import { loadConfig } from '../../app/config';
import { postgresAnswers } from '../../lib/net';

const POSTGRES_SERVER_URL = 'postgres://postgres@127.0.0.1:5432/postgres';
/** The application names the API and the worker connect with (app/api.ts, app/worker.ts). */
const SERVICE_APPLICATION_NAMES = ['handoff-api', 'handoff-worker'];

export interface BenchDatabase {
  kind: 'postgres' | 'embedded';
  url: string;
  /** Connections per service process; the embedded Postgres is one session, so one each. */
  poolMax: number;
  db: Db;
  destroy(): Promise<void>;
}

async function createServerDatabase(): Promise<BenchDatabase> {
  const name = `handoff_bench_${randomBytes(6).toString('hex')}`;
  const admin = createDb({ connectionString: POSTGRES_SERVER_URL, poolMax: 1 });
  await admin.raw(`create database ${name}`);
  const url = new URL(POSTGRES_SERVER_URL);
  url.pathname = `/${name}`;
  const db = createDb({ connectionString: url.toString(), poolMax: 2 });
  return {
    kind: 'postgres',
    url: url.toString(),
    poolMax: loadConfig({}).DATABASE_POOL_MAX,
    db,
    async destroy() {
      await db.destroy();
      await admin.raw(`drop database if exists ${name} with (force)`);
      await admin.destroy();
    },
  };
}

/** Served from this process, so the services' queries cost the load generator's CPU too. */
async function createEmbeddedDatabase(): Promise<BenchDatabase> {
  const embedded = await startEmbeddedPostgres({});
  const db = createDb({ connectionString: embedded.connectionString, poolMax: embedded.poolMax });
  return {
    kind: 'embedded',
    url: embedded.connectionString,
    poolMax: embedded.poolMax,
    db,
    async destroy() {
      await db.destroy();
      await embedded.stop();
    },
  };
}

export async function createBenchDatabase(): Promise<BenchDatabase> {
  return (await postgresAnswers(POSTGRES_SERVER_URL)) ? createServerDatabase() : createEmbeddedDatabase();
}

/** The Postgres server's processes serving the API and the worker; none when Postgres runs in this process. */
export async function serviceBackendPids(database: BenchDatabase): Promise<number[]> {
  if (database.kind === 'embedded') return [];
  const { rows } = await database.db.raw<{ rows: { pid: number }[] }>(
    'select pid from pg_stat_activity where datname = current_database() and application_name = any(?)',
    [SERVICE_APPLICATION_NAMES],
  );
  return rows.map((row) => row.pid);
}

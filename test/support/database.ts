import { randomBytes } from 'node:crypto';
import { createDb, type Db } from '../../db/connection';
import { startEmbeddedPostgres } from '../../db/embedded-postgres';
import { migrateToLatest } from '../../db/migrate';
import { postgresAnswers } from '../../lib/net';

const SERVER_URL = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

export interface TestDatabase {
  db: Db;
  url: string;
  /** PGlite: one session, and no LISTEN/NOTIFY. */
  embedded: boolean;
  destroy(): Promise<void>;
}

/**
 * A migrated database of this test file's own: a fresh database on the Postgres server when one answers
 * (TEST_DATABASE_URL, else 127.0.0.1:5432), otherwise an in-memory embedded Postgres. `migrate: false`
 * leaves it empty, for tests of a migration itself. A migrated one is copied from the run's template
 * (HANDOFF_TEST_DATABASE_TEMPLATE, made by globalSetup) when there is one.
 */
export async function createTestDatabase(options: { migrate?: boolean } = {}): Promise<TestDatabase> {
  const migrate = options.migrate ?? true;
  if (await postgresAnswers(SERVER_URL)) {
    const name = `handoff_test_${randomBytes(6).toString('hex')}`;
    const admin = createDb({ connectionString: SERVER_URL, poolMax: 1 });
    const template = migrate ? process.env.HANDOFF_TEST_DATABASE_TEMPLATE : undefined;
    await admin.raw(template ? `create database ${name} template ${template}` : `create database ${name}`);
    const url = databaseUrl(name);
    const db = createDb({ connectionString: url, poolMax: 10 });
    if (migrate && !template) await migrateToLatest(db);
    return {
      db,
      url,
      embedded: false,
      async destroy() {
        await db.destroy();
        await admin.raw(`drop database if exists ${name} with (force)`);
        await admin.destroy();
      },
    };
  }
  const embedded = await startEmbeddedPostgres({});
  const db = createDb({ connectionString: embedded.connectionString, poolMax: embedded.poolMax });
  if (migrate) await migrateToLatest(db);
  return {
    db,
    url: embedded.connectionString,
    embedded: true,
    async destroy() {
      await db.destroy();
      await embedded.stop();
    },
  };
}

/**
 * The run's migrated template on the Postgres server, or undefined when none answers. Nothing may stay
 * connected to it: Postgres copies a template only while no session uses it.
 */
export async function createTemplateDatabase(): Promise<{ name: string; drop(): Promise<void> } | undefined> {
  if (!(await postgresAnswers(SERVER_URL))) return undefined;
  const name = `handoff_template_${randomBytes(6).toString('hex')}`;
  const admin = createDb({ connectionString: SERVER_URL, poolMax: 1 });
  await admin.raw(`create database ${name}`);
  const db = createDb({ connectionString: databaseUrl(name), poolMax: 1 });
  try {
    await migrateToLatest(db);
  } finally {
    await db.destroy();
  }
  return {
    name,
    async drop() {
      await admin.raw(`drop database if exists ${name} with (force)`);
      await admin.destroy();
    },
  };
}

function databaseUrl(name: string): string {
  const url = new URL(SERVER_URL);
  url.pathname = `/${name}`;
  return url.toString();
}

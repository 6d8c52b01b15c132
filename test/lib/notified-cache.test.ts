import { createDb, type Db } from '../../db/connection';
import { CREDENTIAL_TABLES, CREDENTIALS_CHANNEL, findTokenSubject, upsertTokenSubject } from '../../db/credentials';
import { createLogger } from '../../lib/logger';
import { createNotifiedCache, type NotifiedCache } from '../../lib/notified-cache';
import { createTestDatabase, type TestDatabase } from '../support/database';
import { eventually } from '../support/eventually';

const logger = createLogger({ level: 'error', silent: true });
const ORG = 'org_default';
let database: TestDatabase;
/** Another instance's connection: its writes reach the cache only by notification. */
let elsewhere: Db;
const caches: NotifiedCache[] = [];

beforeAll(async () => {
  database = await createTestDatabase();
  elsewhere = createDb({ connectionString: database.url, poolMax: 2 });
});
afterAll(async () => {
  await Promise.all(caches.map((cache) => cache.close()));
  await elsewhere?.destroy();
  await database?.destroy();
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function cacheOf(listenUrl: string | undefined, unconfirmedWriteMs?: number, heartbeatMs?: number): NotifiedCache {
  const cache = createNotifiedCache({
    db: database.db,
    listenUrl,
    channel: CREDENTIALS_CHANNEL,
    tables: CREDENTIAL_TABLES,
    logger,
    ...(unconfirmedWriteMs === undefined ? {} : { unconfirmedWriteMs }),
    ...(heartbeatMs === undefined ? {} : { heartbeatMs }),
  });
  caches.push(cache);
  return cache;
}

/** A read of a subject's scopes through the cache, counting the reads that reached the database. */
function subjectReader(cache: NotifiedCache, subject: string) {
  const reader = {
    loads: 0,
    read: () =>
      cache.get('token_subjects', subject, async () => {
        reader.loads += 1;
        return (await findTokenSubject(database.db, subject, ORG))?.scopes;
      }),
  };
  return reader;
}

async function listening(cache: NotifiedCache): Promise<void> {
  await cache.get('token_subjects', 'warm-up', async () => undefined);
  await eventually(
    async () => cache.status().hearing,
    (hearing) => hearing,
  );
}

describe('a cache told of every change to its tables', () => {
  it('answers from memory while listening, and drops a table when another instance changes it', async () => {
    const cache = cacheOf(database.url);
    await listening(cache);
    await upsertTokenSubject(elsewhere, { subject: 'ci', organization_id: ORG, scopes: ['orch:read'] });
    const reader = subjectReader(cache, 'ci');
    await eventually(reader.read, (scopes) => scopes?.join() === 'orch:read');
    // The write's own notification may still be on its way; once it is in, reads stay in memory.
    await sleep(300);
    await reader.read();
    const loadsBefore = reader.loads;
    expect(await reader.read()).toEqual(['orch:read']);
    expect(await reader.read()).toEqual(['orch:read']);
    expect(reader.loads).toBe(loadsBefore);

    await elsewhere('token_subjects').where({ subject: 'ci' }).delete();
    await eventually(reader.read, (scopes) => scopes === undefined);
  });

  it('never caches what it reads while its own instance is writing the table, so its own change shows at once', async () => {
    const cache = cacheOf(database.url, 500);
    await listening(cache);
    const reader = subjectReader(cache, 'own');
    await upsertTokenSubject(database.db, { subject: 'own', organization_id: ORG, scopes: ['orch:read'] });
    await sleep(600);
    expect(await reader.read()).toEqual(['orch:read']);
    expect(cache.status().entries).toBe(1);
    await database.db.transaction(async (trx) => {
      await trx('token_subjects')
        .where({ subject: 'own' })
        .update({ scopes: ['orch:read', 'orch:write'] });
      // Read before the commit, by another connection: the old row, which must not stay in memory.
      expect(await reader.read()).toEqual(['orch:read']);
      expect(cache.status().entries).toBe(0);
    });
    expect(await reader.read()).toEqual(['orch:read', 'orch:write']);
  });

  it('keeps nothing read while a change to the table was heard of', async () => {
    const cache = cacheOf(database.url);
    await listening(cache);
    await upsertTokenSubject(elsewhere, { subject: 'racing', organization_id: ORG, scopes: ['orch:read'] });
    await cache.get('token_subjects', 'racing', async () => {
      const scopes = (await findTokenSubject(database.db, 'racing', ORG))?.scopes;
      await upsertTokenSubject(elsewhere, { subject: 'racing', organization_id: ORG, scopes: ['orch:write'] });
      await new Promise((resolve) => setTimeout(resolve, 300));
      return scopes;
    });
    expect(cache.status().entries).toBe(0);
  });

  it('reads every time without a listener, and forgets what it held when its listener drops', async () => {
    const unheard = cacheOf(undefined);
    const reader = subjectReader(unheard, 'nobody');
    await reader.read();
    await reader.read();
    expect(reader.loads).toBe(2);

    const cache = cacheOf(database.url);
    await listening(cache);
    const listened = subjectReader(cache, 'dropped');
    await listened.read();
    await database.db.raw(
      `select pg_terminate_backend(pid) from pg_stat_activity
        where application_name = ? and datname = current_database()`,
      [`handoff-${CREDENTIALS_CHANNEL}`],
    );
    await eventually(
      async () => cache.status().entries,
      (entries) => entries === 0,
    );
    const loadsBefore = listened.loads;
    await listened.read();
    expect(listened.loads).toBe(loadsBefore + 1);
  });

  it('holds nothing while its listener does not hear its own heartbeat (notifications lost on the way)', async () => {
    // LISTENing in another database: the connection is up, but nothing notified in this one reaches it.
    const elsewhereDatabase = await createTestDatabase({ migrate: false });
    try {
      const deaf = cacheOf(elsewhereDatabase.url, undefined, 100);
      const reader = subjectReader(deaf, 'unheard');
      await reader.read();
      await eventually(
        async () => deaf.status().listening,
        (up) => up,
      );
      await sleep(300);
      await reader.read();
      await reader.read();
      expect(deaf.status()).toMatchObject({ listening: true, hearing: false, entries: 0 });
      expect(reader.loads).toBe(3);
      await deaf.close();
    } finally {
      await elsewhereDatabase.destroy();
    }
  });
});

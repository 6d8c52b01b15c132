import { createDb, type Db } from '../../db/connection';
import { dependencyFailureOf } from '../../lib/dependency-failure';
import { createTestDatabase, type TestDatabase } from '../support/database';
import { startTcpProxy, type TcpProxy } from '../support/tcp-proxy';

/*
 * A transaction whose statement the client gave up on (query_timeout) must not leave its connection in
 * the pool: its ROLLBACK waits behind the stalled statement and is dropped by its own read timeout, so a
 * connection handed out again would still be inside the abandoned transaction.
 */
const TIMEOUTS = { acquireMs: 2000, statementMs: 300, idleInTransactionMs: 60_000 };

let database: TestDatabase;
let proxy: TcpProxy;
let db: Db;

beforeAll(async () => {
  database = await createTestDatabase({ migrate: false });
  if (database.embedded) return;
  await database.db.raw('create table scratch (id int)');
  const target = new URL(database.url);
  proxy = await startTcpProxy({ host: target.hostname, port: Number(target.port || 5432) });
  // One connection, so the request after the abandoned transaction gets the same one unless it was dropped.
  db = createDb({ connectionString: proxy.via(database.url), poolMax: 1, timeouts: TIMEOUTS });
});
afterAll(async () => {
  proxy?.restore();
  await db?.destroy();
  await proxy?.close();
  await database?.destroy();
});

const stalled = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

it('drops a connection whose statement timed out inside a transaction, so the next request runs outside it', async () => {
  if (database.embedded) return; // PGlite has one session and no proxy in front: nothing to abandon.
  const abandoned = db.transaction(async (trx) => {
    await trx.raw('insert into scratch values (1)');
    proxy.freeze();
    await trx.raw('select 1');
  });
  const failure = await abandoned.then(
    () => undefined,
    (error: unknown) => error,
  );
  // A database failure the API answers 503 for, as any other outage.
  expect(dependencyFailureOf(failure)).toMatchObject({ dependency: 'postgres' });
  // Past the ROLLBACK's own read timeout too, then the stalled statement goes through.
  await stalled(TIMEOUTS.statementMs * 3);
  proxy.restore();
  // The stalled statement is answered now, so the connection looks idle again to the pool.
  await stalled(200);

  const next = await db.raw<{ rows: Array<{ xact: string | null; seen: number }> }>(
    'select pg_current_xact_id_if_assigned()::text as xact, (select count(*) from scratch)::int as seen',
  );
  expect(next.rows[0]).toEqual({ xact: null, seen: 0 });
  await db.raw('insert into scratch values (2)');
  const committed = await database.db('scratch').select('id');
  expect(committed).toEqual([{ id: 2 }]);
});

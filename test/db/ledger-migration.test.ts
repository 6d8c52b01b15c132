import { createHash } from 'node:crypto';
import type { Knex } from 'knex';
import { appendProvenance, listProvenanceForSubject, transactionIdFor } from '../../db/ledger';
import { migrateToLatest, migrationSource } from '../../db/migrate';
import { canonicalJson } from '../../domain/common/canonical-json';
import type { ProvenanceEntry } from '../../domain/provenance/records';
import { verifyStoredLedger } from '../../services/ledger/export';
import { ensureLedgerKey } from '../../services/ledger/keys';
import { sealOpenBlock } from '../../services/ledger/seal';
import { createTestDatabase, type TestDatabase } from '../support/database';

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

const entry = (step_id: string): ProvenanceEntry => ({
  subject_id: 'rt_before_upgrade',
  step_id,
  timestamp: '2026-11-20T10:00:00.000Z',
  actor: { type: 'orch_core', did: 'did:web:handoff.local:orch-core' },
  action: step_id === 'routing_decision' ? 'routing_decided' : 'routing_resolved',
  input_data: { note: 'written by the foundation’s hash chain' },
  output_data: {},
  reasoning: 'carried over',
});

/** Writes records the way the foundation's appendProvenance did: a hash chain with one head row. */
async function appendTheFoundationWay(db: Knex, entries: ProvenanceEntry[], options: { breakAt?: number } = {}) {
  let prev = '0'.repeat(64);
  for (const [i, recorded] of entries.entries()) {
    const seq = i + 1;
    const canonical = canonicalJson(recorded);
    const hash = options.breakAt === seq ? sha256('forged') : sha256(`${prev}${canonical}`);
    await db('provenance_records').insert({
      seq,
      transaction_id: transactionIdFor(recorded.subject_id, recorded.step_id),
      subject_id: recorded.subject_id,
      step_id: recorded.step_id,
      entry: JSON.stringify(recorded),
      canonical_entry: canonical,
      prev_hash: prev,
      hash,
    });
    await db('outbox_events').insert({
      event_id: `evt_${seq}`,
      event: 'routing.decided',
      data: JSON.stringify({ seq }),
      provenance_seq: seq,
    });
    await db('ledger_head').where({ id: 1 }).update({ seq, hash });
    prev = hash;
  }
}

async function foundationOnly(): Promise<TestDatabase> {
  const database = await createTestDatabase({ migrate: false });
  await database.db.migrate.up({ migrationSource });
  return database;
}

describe('the ledger migration', () => {
  let database: TestDatabase;
  afterEach(() => database?.destroy());

  it('carries a foundation hash chain into the log, each record sealed in the block its anchor named', async () => {
    database = await foundationOnly();
    const { db } = database;
    await appendTheFoundationWay(db, [entry('routing_decision'), entry('resolution')]);
    await migrateToLatest(db);

    const records = await listProvenanceForSubject(db, 'rt_before_upgrade');
    expect(records.map((record) => record.anchor)).toEqual([
      { transaction_id: transactionIdFor('rt_before_upgrade', 'routing_decision'), block_number: 1 },
      { transaction_id: transactionIdFor('rt_before_upgrade', 'resolution'), block_number: 2 },
    ]);
    const outbox = await db('outbox_events as o')
      .join('ledger_entries as e', 'e.seq', 'o.provenance_seq')
      .orderBy('o.event_id')
      .select('o.event_id', 'e.block_number');
    expect(outbox).toEqual([
      { event_id: 'evt_1', block_number: 1 },
      { event_id: 'evt_2', block_number: 2 },
    ]);

    const key = await ensureLedgerKey(db, 'migration.test/log');
    const next = await appendProvenance(db, { entry: { ...entry('after_upgrade'), action: 'escalated' } });
    expect(next.block_number).toBe(3);
    const sealed = await sealOpenBlock(db, key, { lockTimeoutMs: 2000 });
    expect(sealed.map((block) => [block.block_number, block.tree_size])).toEqual([
      [1, 1],
      [2, 2],
      [3, 3],
    ]);
    expect((await listProvenanceForSubject(db, 'rt_before_upgrade')).map((record) => record.leaf_index)).toEqual([
      0, 1, 2,
    ]);
    expect(await verifyStoredLedger(db)).toMatchObject({ ok: true, problems: [] });
  });

  it('refuses to carry a broken chain into the log, and leaves the database as it was', async () => {
    database = await foundationOnly();
    const { db } = database;
    await appendTheFoundationWay(db, [entry('routing_decision'), entry('resolution')], { breakAt: 2 });
    // knex prints the failure it rethrows; the assertion is on what it rethrows.
    const knexLog = jest.spyOn(console, 'log').mockImplementation(() => undefined);
    await expect(migrateToLatest(db)).rejects.toThrow(/broken at seq 2/);
    knexLog.mockRestore();
    expect(await db('provenance_records').count({ count: '*' })).toEqual([{ count: 2 }]);
  });

  it('goes back down to an intact hash chain with every record and outbox event', async () => {
    database = await foundationOnly();
    const { db } = database;
    await appendTheFoundationWay(db, [entry('routing_decision')]);
    await migrateToLatest(db);
    await appendProvenance(db, { entry: entry('resolution'), events: [{ event: 'routing.completed', data: {} }] });
    // Newest first, until the ledger's own migration is undone too.
    while ((await db.migrate.currentVersion({ migrationSource })) >= '20261123000200')
      await db.migrate.down({ migrationSource });

    const rows = await db('provenance_records').orderBy('seq');
    let prev = '0'.repeat(64);
    for (const row of rows) {
      expect(row.prev_hash).toBe(prev);
      expect(row.hash).toBe(sha256(`${prev}${row.canonical_entry}`));
      prev = row.hash;
    }
    expect(rows.map((row: { step_id: string }) => row.step_id)).toEqual(['routing_decision', 'resolution']);
    expect(await db('ledger_head').first()).toEqual({ id: 1, seq: 2, hash: prev });
    expect(
      (await db('outbox_events').orderBy('provenance_seq')).map((row: { event: string; provenance_seq: number }) => [
        row.event,
        row.provenance_seq,
      ]),
    ).toEqual([
      ['routing.decided', 1],
      ['routing.completed', 2],
    ]);
  });
});

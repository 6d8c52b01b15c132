import { appendProvenance, appendProvenanceBatch, LedgerAppendError, listProvenanceForSubject } from '../../db/ledger';
import { closeBlock, ledgerSealingLag, ledgerState } from '../../db/ledger-blocks';
import { canonicalJson, CanonicalJsonError } from '../../domain/common/canonical-json';
import { edgeNodeIds, verifyConsistency } from '../../domain/ledger/merkle';
import type { ProvenanceEntry } from '../../domain/provenance/records';
import { verifyStoredLedger } from '../../services/ledger/export';
import { ensureLedgerKey, type LedgerKey } from '../../services/ledger/keys';
import { consistencyProof, recordBundle } from '../../services/ledger/proofs';
import { leafHashOfBody, rfc6962 } from '../../services/ledger/rfc6962';
import { sealBlock, SealError, sealOpenBlock } from '../../services/ledger/seal';
import { openCheckpoint, verifyInclusionBundle } from '../../services/ledger/verify';
import { createTestDatabase, type TestDatabase } from '../support/database';

let database: TestDatabase;
let key: LedgerKey;
beforeAll(async () => {
  database = await createTestDatabase();
  key = await ensureLedgerKey(database.db, 'ledger.test/log');
});
afterAll(() => database?.destroy());

const entry = (subject_id: string, step_id: string, extra: Partial<ProvenanceEntry> = {}): ProvenanceEntry => ({
  subject_id,
  step_id,
  timestamp: '2026-11-22T00:00:00.000Z',
  actor: { type: 'orch_core' },
  action: 'test',
  input_data: { b: 1, a: [1, 'é'] },
  output_data: {},
  reasoning: 'because',
  ...extra,
});

const seal = () => sealOpenBlock(database.db, key, { lockTimeoutMs: 2000 });
const leafIndexes = async (subject: string) =>
  (await listProvenanceForSubject(database.db, subject)).map((record) => record.leaf_index);

describe('appendProvenance', () => {
  it('gives concurrent appends one open block, then unique gapless leaf indexes when the block is sealed', async () => {
    const { open_block } = await ledgerState(database.db);
    const before = (await ledgerSealingLag(database.db)).tree_size;
    const anchors = await Promise.all(
      Array.from({ length: 60 }, (_, i) => appendProvenance(database.db, { entry: entry('concurrent', `step-${i}`) })),
    );
    expect(new Set(anchors.map((anchor) => anchor.block_number))).toEqual(new Set([open_block]));
    expect(new Set(anchors.map((anchor) => anchor.transaction_id)).size).toBe(60);

    const [sealed] = await seal();
    const indexes = (await leafIndexes('concurrent')) as number[];
    expect(sealed).toMatchObject({ block_number: open_block, tree_size: before + 60 });
    expect([...indexes].sort((a, b) => a - b)).toEqual(Array.from({ length: 60 }, (_, i) => before + i));
  });

  it('returns the first anchor when a step is appended again (an activity retry), before and after sealing', async () => {
    const events = [{ event: 'routing.decided' as const, data: { x: 1 } }];
    const first = await appendProvenance(database.db, { entry: entry('retry', 'decision'), events });
    const again = await appendProvenance(database.db, {
      entry: entry('retry', 'decision', { reasoning: 'second try' }),
      events,
    });
    expect(again).toEqual(first);
    await seal();
    expect(await appendProvenance(database.db, { entry: entry('retry', 'decision'), events })).toEqual(first);
    const records = await listProvenanceForSubject(database.db, 'retry');
    expect(records).toHaveLength(1);
    expect(records[0]!.entry.reasoning).toBe('because');
    const seq = (await database.db('ledger_entries').where({ transaction_id: first.transaction_id }).first()).seq;
    expect(await database.db('outbox_events').where({ provenance_seq: seq })).toHaveLength(1);
  });

  it('appends a batch in one statement, each record in order and once', async () => {
    const inputs = [entry('batch', 'a'), entry('batch', 'b'), entry('batch', 'a'), entry('batch', 'c')].map((e) => ({
      entry: e,
    }));
    const anchors = await appendProvenanceBatch(database.db, inputs);
    expect(anchors[0]).toEqual(anchors[2]);
    await seal();
    const records = await listProvenanceForSubject(database.db, 'batch');
    expect(records.map((record) => record.entry.step_id)).toEqual(['a', 'b', 'c']);
    const [a, b, c] = records.map((record) => record.leaf_index!);
    expect([b! - a!, c! - b!]).toEqual([1, 1]);
  });

  it('hashes the canonical body in Postgres exactly as the verifier does', async () => {
    const recorded = entry('hash', 'check', { input_data: { z: 'ü', a: { y: [3, 1.5, null] } } });
    const anchor = await appendProvenance(database.db, { entry: recorded });
    const row = await database.db('ledger_entries').where({ transaction_id: anchor.transaction_id }).first();
    expect(row.body).toBe(canonicalJson(recorded));
    expect(row.leaf_hash.equals(leafHashOfBody(canonicalJson(recorded)))).toBe(true);
  });

  it('writes nothing when the caller’s transaction rolls back', async () => {
    await expect(
      database.db.transaction(async (trx) => {
        await appendProvenance(trx, {
          entry: entry('rolled-back', 'one'),
          events: [{ event: 'routing.decided', data: {} }],
        });
        throw new Error('the caller fails after appending');
      }),
    ).rejects.toThrow('the caller fails');
    expect(await listProvenanceForSubject(database.db, 'rolled-back')).toEqual([]);
  });

  it('refuses a transaction whose snapshot could miss a closed block', async () => {
    await expect(
      database.db.transaction(async (trx) => appendProvenance(trx, { entry: entry('isolated', 'one') }), {
        isolationLevel: 'repeatable read',
      }),
    ).rejects.toThrow(/needs READ COMMITTED, not repeatable read/);
  });

  it('keeps a block open until an append still in a caller’s transaction commits, then seals it there', async () => {
    const { open_block } = await ledgerState(database.db);
    let commit!: () => void;
    const committed = new Promise<void>((resolve) => (commit = resolve));
    let appended!: (block: number) => void;
    const anchorBlock = new Promise<number>((resolve) => (appended = resolve));
    const caller = database.db.transaction(async (trx) => {
      appended((await appendProvenance(trx, { entry: entry('long-transaction', 'one') })).block_number);
      await committed;
    });
    expect(await anchorBlock).toBe(open_block);
    await expect(closeBlock(database.db, open_block, { lockTimeoutMs: 200 })).rejects.toThrow(/lock timeout/);
    commit();
    await caller;
    expect(await closeBlock(database.db, open_block, { lockTimeoutMs: 2000 })).toEqual({
      ok: true,
      block_number: open_block,
    });
    await seal();
    expect((await leafIndexes('long-transaction'))[0]).not.toBeNull();
  });

  it('refuses a record with a lone surrogate before writing anything, and stores a Date as its ISO string', async () => {
    const before = await database.db('ledger_entries').count<{ count: string }[]>({ count: '*' });
    await expect(
      appendProvenance(database.db, { entry: entry('surrogate', 'lone', { reasoning: 'cut \uD83D' }) }),
    ).rejects.toThrow(CanonicalJsonError);
    expect(await database.db('ledger_entries').count<{ count: string }[]>({ count: '*' })).toEqual(before);

    await appendProvenance(database.db, {
      entry: entry('surrogate', 'dated', { input_data: { at: new Date('2026-11-22T01:02:03.004Z') } }),
    });
    const [record] = await listProvenanceForSubject(database.db, 'surrogate');
    expect(record!.entry.input_data).toEqual({ at: '2026-11-22T01:02:03.004Z' });
  });

  it('refuses an ISO-less timestamp before writing anything', async () => {
    await expect(
      appendProvenance(database.db, { entry: entry('bad', 'time', { timestamp: 'yesterday' }) }),
    ).rejects.toThrow(LedgerAppendError);
  });
});

describe('sealing', () => {
  it('signs each checkpoint consistent with the one before it, and reports no lag once sealed', async () => {
    for (let block = 0; block < 4; block += 1) {
      await appendProvenanceBatch(
        database.db,
        Array.from({ length: 3 + block * 5 }, (_, i) => ({ entry: entry(`seal-${block}`, `s${i}`) })),
      );
      await seal();
    }
    const rows = await database.db('ledger_checkpoints').orderBy('block_number', 'asc');
    expect(rows.length).toBeGreaterThan(4);
    for (let i = 1; i < rows.length; i += 1) {
      const [older, newer] = [
        openCheckpoint(rows[i - 1].checkpoint, key.signer),
        openCheckpoint(rows[i].checkpoint, key.signer),
      ];
      const proof = await consistencyProof(database.db, older.treeSize, newer.treeSize);
      expect(
        verifyConsistency(
          rfc6962,
          older.treeSize,
          newer.treeSize,
          proof,
          Buffer.from(older.rootHash, 'base64'),
          Buffer.from(newer.rootHash, 'base64'),
        ),
      ).toBe(true);
    }
    expect(await ledgerSealingLag(database.db)).toMatchObject({
      unsealed_leaves: 0,
      oldest_unsealed_age_seconds: null,
      last_sealed_block: Number(rows[rows.length - 1].block_number),
    });
    expect(await verifyStoredLedger(database.db)).toMatchObject({ ok: true, problems: [] });
  });

  it('is idempotent per block: sealing a sealed block returns its checkpoint', async () => {
    await appendProvenance(database.db, { entry: entry('idempotent', 'one') });
    const [sealed] = await seal();
    expect(await sealBlock(database.db, sealed!.block_number, key)).toEqual(sealed);
  });

  it('measures the lag of records waiting for their block to be sealed', async () => {
    await appendProvenance(database.db, { entry: entry('lag', 'one') });
    const lag = await ledgerSealingLag(database.db);
    expect(lag.unsealed_leaves).toBe(1);
    expect(lag.oldest_unsealed_age_seconds).toBeGreaterThanOrEqual(0);
    await seal();
  });

  it('proves a sealed record’s inclusion with a bundle the offline verifier accepts', async () => {
    const anchor = await appendProvenance(database.db, { entry: entry('bundle', 'one') });
    await appendProvenanceBatch(
      database.db,
      Array.from({ length: 9 }, (_, i) => ({ entry: entry('bundle-filler', `${i}`) })),
    );
    expect(await recordBundle(database.db, anchor.transaction_id)).toMatchObject({ ok: false, code: 'not_sealed' });
    await seal();
    const outcome = await recordBundle(database.db, anchor.transaction_id);
    if (!outcome.ok) throw new Error(outcome.detail);
    expect(verifyInclusionBundle(outcome.bundle, key.signer)).toMatchObject({ ok: true, problems: [] });
    const forged = {
      ...outcome.bundle,
      records: outcome.bundle.records.map((record) => ({
        ...record,
        body: record.body.replace('because', 'because I said so'),
      })),
    };
    expect(verifyInclusionBundle(forged, key.signer).ok).toBe(false);
  });

  it('reports a body with a lone surrogate as not canonical, rather than failing', async () => {
    const anchor = await appendProvenance(database.db, { entry: entry('bundle', 'lone') });
    await seal();
    const outcome = await recordBundle(database.db, anchor.transaction_id);
    if (!outcome.ok) throw new Error(outcome.detail);
    const lone = {
      ...outcome.bundle,
      records: outcome.bundle.records.map((record) => ({
        ...record,
        body: record.body.replace('because', 'because \\ud800'),
      })),
    };
    const report = verifyInclusionBundle(lone, key.signer);
    expect(report.ok).toBe(false);
    expect(report.problems).toEqual([expect.stringMatching(/not in RFC 8785 canonical form.*lone surrogate/)]);
  });
});

describe('append-only tables', () => {
  it.each(['ledger_entries', 'ledger_blocks', 'ledger_leaves', 'ledger_nodes', 'ledger_checkpoints', 'ledger_keys'])(
    'refuse UPDATE, DELETE and TRUNCATE on %s',
    async (table) => {
      const db = database.db;
      await expect(
        db.raw(
          `update ${table} set ${table === 'ledger_keys' ? 'origin = origin' : table === 'ledger_nodes' ? 'hash = hash' : 'block_number = block_number'}`,
        ),
      ).rejects.toThrow(/append-only/);
      await expect(db.raw(`delete from ${table}`)).rejects.toThrow(/append-only/);
      await expect(db.raw(`truncate ${table} cascade`)).rejects.toThrow(/append-only/);
    },
  );

  it('refuses a leaf index that would leave a gap', async () => {
    await appendProvenance(database.db, { entry: entry('gap', 'one') });
    const { open_block } = await ledgerState(database.db);
    await closeBlock(database.db, open_block, { lockTimeoutMs: 2000 });
    const { max } = (await database.db('ledger_leaves').max('leaf_index as max').first()) as { max: number };
    const transaction_id = (await database.db('ledger_entries').where({ subject_id: 'gap' }).first()).transaction_id;
    await expect(
      database.db('ledger_leaves').insert({ leaf_index: max + 2, transaction_id, block_number: open_block }),
    ).rejects.toThrow(/gap/);
    await seal();
  });
});

describe('tampering behind the service’s back', () => {
  const flipped = (hash: Buffer) => {
    const copy = Buffer.from(hash);
    copy[0]! ^= 1;
    return copy;
  };

  /** What an intruder with the database owner’s rights could do: switch the triggers off for one edit. */
  async function behindTheBack(table: string, sql: string, bindings: unknown[]) {
    await database.db.transaction(async (trx) => {
      await trx.raw(`alter table ${table} disable trigger user`);
      await trx.raw(sql, bindings as never);
      await trx.raw(`alter table ${table} enable trigger user`);
    });
  }

  it('is found by the verifier when a sealed record’s body is edited', async () => {
    const anchor = await appendProvenance(database.db, { entry: entry('tamper', 'body') });
    await seal();
    const outcome = await recordBundle(database.db, anchor.transaction_id);
    if (!outcome.ok) throw new Error(outcome.detail);
    const body = outcome.bundle.records[0]!.body;
    await behindTheBack('ledger_entries', 'update ledger_entries set body = ? where transaction_id = ?', [
      body.replace('because', 'becausE'),
      anchor.transaction_id,
    ]);
    const report = await verifyStoredLedger(database.db);
    expect(report.ok).toBe(false);
    expect(report.problems.join('\n')).toMatch(/a record was changed/);
    await behindTheBack('ledger_entries', 'update ledger_entries set body = ? where transaction_id = ?', [
      body,
      anchor.transaction_id,
    ]);
    expect((await verifyStoredLedger(database.db)).ok).toBe(true);
  });

  it('spoils the proofs that use an edited subtree', async () => {
    await appendProvenanceBatch(database.db, [
      { entry: entry('tamper', 'leaf-a') },
      { entry: entry('tamper', 'leaf-b') },
    ]);
    await seal();
    const second = await database.db('ledger_leaves').where({ leaf_index: 1 }).first();
    const original = (await database.db('ledger_nodes').where({ level: 0, idx: 0 }).first()).hash as Buffer;
    await behindTheBack('ledger_nodes', 'update ledger_nodes set hash = ? where level = 0 and idx = 0', [
      flipped(original),
    ]);
    const bundle = await recordBundle(database.db, second.transaction_id);
    if (!bundle.ok) throw new Error(bundle.detail);
    expect(verifyInclusionBundle(bundle.bundle, key.signer).problems).toEqual([
      expect.stringMatching(/does not lead to the checkpoint's root/),
    ]);
    await behindTheBack('ledger_nodes', 'update ledger_nodes set hash = ? where level = 0 and idx = 0', [original]);
  });

  it('stops the sealer from signing a tree that does not extend the last checkpoint', async () => {
    const { tree_size } = await ledgerSealingLag(database.db);
    const [top] = edgeNodeIds(tree_size);
    const original = (await database.db('ledger_nodes').where({ level: top!.level, idx: top!.index }).first())
      .hash as Buffer;
    await behindTheBack('ledger_nodes', 'update ledger_nodes set hash = ? where level = ? and idx = ?', [
      flipped(original),
      top!.level,
      top!.index,
    ]);
    await appendProvenance(database.db, { entry: entry('tamper', 'after') });
    await expect(seal()).rejects.toThrow(SealError);
    await behindTheBack('ledger_nodes', 'update ledger_nodes set hash = ? where level = ? and idx = ?', [
      original,
      top!.level,
      top!.index,
    ]);
    await seal();
    expect((await verifyStoredLedger(database.db)).ok).toBe(true);
  });
});

import { appendProvenance, chainHash, findBrokenLink, listProvenanceForSubject } from '../../db/ledger';
import { canonicalJson } from '../../domain/canonical-json';
import type { ProvenanceEntry } from '../../domain/provenance';
import { createTestDatabase, type TestDatabase } from '../support/database';

let database: TestDatabase;
beforeAll(async () => {
  database = await createTestDatabase();
});
afterAll(() => database?.destroy());

const entry = (subject_id: string, step_id: string): ProvenanceEntry => ({
  subject_id,
  step_id,
  timestamp: '2026-11-22T00:00:00.000Z',
  actor: { type: 'orch_core' },
  action: 'test',
  input_data: { b: 1, a: [1, 'é'] },
  output_data: {},
  reasoning: 'because',
});

describe('appendProvenance', () => {
  it('gives concurrent appends unique, gapless positions on an unbroken chain', async () => {
    const anchors = await Promise.all(Array.from({ length: 40 }, (_, i) => appendProvenance(database.db, { entry: entry(`s-${i}`, 'one') })));
    const positions = anchors.map((anchor) => anchor.block_number).sort((a, b) => a - b);
    expect(positions).toEqual(Array.from({ length: 40 }, (_, i) => i + 1));
    expect(await findBrokenLink(database.db)).toBeUndefined();
  });

  it('returns the first anchor when a step is appended again (an activity retry)', async () => {
    const first = await appendProvenance(database.db, { entry: entry('retry', 'decision'), events: [{ event: 'routing.decided', data: { x: 1 } }] });
    const again = await appendProvenance(database.db, { entry: { ...entry('retry', 'decision'), reasoning: 'second try' }, events: [{ event: 'routing.decided', data: { x: 1 } }] });
    expect(again).toEqual(first);
    expect(await listProvenanceForSubject(database.db, 'retry')).toHaveLength(1);
    expect(await database.db('outbox_events').where({ provenance_seq: first.block_number })).toHaveLength(1);
  });

  it('hashes in Postgres exactly as the verifier does', async () => {
    const anchor = await appendProvenance(database.db, { entry: entry('hash', 'check') });
    const row = await database.db('provenance_records').where({ seq: anchor.block_number }).first();
    expect(row.canonical_entry).toBe(canonicalJson(entry('hash', 'check')));
    expect(row.hash).toBe(chainHash(row.prev_hash, row.canonical_entry));
  });
});

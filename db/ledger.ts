import { createHash, randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import { canonicalJson } from '../domain/canonical-json';
import type { AppendProvenanceInput, LedgerAnchor, ProvenanceEntry } from '../domain/provenance';

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

/** Derived from what is recorded, so a retried append finds the first one instead of writing twice. */
export function transactionIdFor(subjectId: string, stepId: string): string {
  return sha256(`${subjectId}:${stepId}`);
}

export function chainHash(prevHash: string, canonicalEntry: string): string {
  return sha256(`${prevHash}${canonicalEntry}`);
}

interface ProvenanceRow {
  seq: number;
  transaction_id: string;
  subject_id: string;
  step_id: string;
  entry: ProvenanceEntry;
  canonical_entry: string;
  prev_hash: string;
  hash: string;
}

/**
 * Appends one record to the hash chain, and its events to the outbox, in one statement: the head row's
 * lock serializes appends for that statement only and keeps `seq` gapless, and Postgres computes the
 * same hash as chainHash. A record already appended returns its anchor. Here every record is its own
 * block, so block_number is the record's position in the chain.
 */
export async function appendProvenance(db: Knex, input: AppendProvenanceInput): Promise<LedgerAnchor> {
  const { entry } = input;
  const transaction_id = transactionIdFor(entry.subject_id, entry.step_id);
  const canonical = canonicalJson(entry);
  const events = (input.events ?? []).map((event) => ({ event_id: `evt_${randomUUID()}`, event: event.event, data: event.data }));
  const result = await db.raw<{ rows: { seq: number | null }[] }>(
    `with head as (select seq, hash from ledger_head where id = 1 for update),
     existing as (select seq from provenance_records where transaction_id = :transaction_id),
     inserted as (
       insert into provenance_records (seq, transaction_id, subject_id, step_id, entry, canonical_entry, prev_hash, hash)
       select head.seq + 1, :transaction_id, :subject_id, :step_id, :entry::jsonb, :canonical, head.hash,
              encode(sha256(convert_to(head.hash || :canonical, 'UTF8')), 'hex')
       from head where not exists (select 1 from existing)
       returning seq, hash),
     -- Data-modifying CTEs run whether or not the final select reads them.
     moved as (update ledger_head set seq = inserted.seq, hash = inserted.hash from inserted where ledger_head.id = 1),
     outbox as (
       insert into outbox_events (event_id, event, data, provenance_seq)
       select e.event_id, e.event, e.data, inserted.seq
       from inserted cross join jsonb_to_recordset(:events::jsonb) as e(event_id text, event text, data jsonb))
     select coalesce((select seq from inserted), (select seq from existing)) as seq`,
    {
      transaction_id,
      subject_id: entry.subject_id,
      step_id: entry.step_id,
      entry: JSON.stringify(entry),
      canonical,
      events: JSON.stringify(events),
    },
  );
  const seq = result.rows[0]?.seq;
  if (seq === null || seq === undefined) throw new Error('ledger_head is missing; run the migrations');
  return { transaction_id, block_number: Number(seq) };
}

export interface ProvenanceRecord {
  entry: ProvenanceEntry;
  anchor: LedgerAnchor;
  hash: string;
}

export async function listProvenanceForSubject(db: Knex, subjectId: string): Promise<ProvenanceRecord[]> {
  const rows = await db<ProvenanceRow>('provenance_records').where({ subject_id: subjectId }).orderBy('seq', 'asc');
  return rows.map((row) => ({
    entry: row.entry,
    anchor: { transaction_id: row.transaction_id, block_number: Number(row.seq) },
    hash: row.hash,
  }));
}

/**
 * Walks the chain from the start and returns the first position whose stored entry or hash does not
 * follow from its predecessor, or undefined when the whole chain holds.
 */
export async function findBrokenLink(db: Knex): Promise<number | undefined> {
  let prev = '0'.repeat(64);
  let expectedSeq = 1;
  for (let offset = 0; ; offset += 1000) {
    const rows = await db<ProvenanceRow>('provenance_records').orderBy('seq', 'asc').offset(offset).limit(1000);
    if (rows.length === 0) return undefined;
    for (const row of rows) {
      const seq = Number(row.seq);
      if (seq !== expectedSeq || row.prev_hash !== prev) return seq;
      if (canonicalJson(row.entry) !== row.canonical_entry) return seq;
      if (chainHash(prev, row.canonical_entry) !== row.hash) return seq;
      prev = row.hash;
      expectedSeq += 1;
    }
  }
}

import { createHash, randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import { canonicalJson } from '../domain/common/canonical-json';
import type { AppendProvenanceInput, LedgerAnchor, ProvenanceEntry } from '../domain/provenance/records';
import { LEDGER_LOCKS } from './ledger-locks';
import { paginate, type Page, type PageRequest } from './pagination';

/** For the health check: how far sealing is behind appending. */
export { ledgerSealingLag, type SealingLag } from './ledger-blocks';

/** Derived from what is recorded, so a retried append finds the first one instead of writing twice. */
export function transactionIdFor(subjectId: string, stepId: string): string {
  return createHash('sha256').update(`${subjectId}:${stepId}`).digest('hex');
}

export interface EntryRow {
  seq: number;
  transaction_id: string;
  subject_id: string;
  step_id: string;
  body: string;
  leaf_hash: Buffer;
  block_number: number;
  leaf_index: number | null;
  created_at: Date;
}

/**
 * A record and the organization it belongs to, stored beside it outside the hashed body: audit, provenance
 * and event queries show each organization its own records. Absent: the default organization.
 */
export type TenantProvenanceInput = AppendProvenanceInput & { organization_id?: string | undefined };

export class LedgerAppendError extends Error {
  override name = 'LedgerAppendError';
}

/**
 * Appends one provenance record to the log, and its events to the outbox, in one statement; see
 * appendProvenanceBatch.
 */
export async function appendProvenance(
  db: Knex,
  input: TenantProvenanceInput,
  companion?: CompanionWrite,
): Promise<LedgerAnchor> {
  const [anchor] = await appendProvenanceBatch(db, [input], companion);
  return anchor!;
}

/**
 * Appends records to the log, each with its events in the outbox, and returns each record's anchor: its
 * transaction id and the block it will be sealed into (the open block, final once the append commits).
 * A record appended before (same subject and step) returns its first anchor and adds no events. `db` may
 * be a transaction (READ COMMITTED, Postgres's default: the open block must be read after the lock);
 * the append lock is then held until it commits, which delays the block's closure, not other appends.
 * Leaf indexes are given when the block is sealed, gapless and in order of arrival.
 */
/**
 * Writes of the rows a record describes, as data-modifying CTEs (`name as (insert …)`) run in the append's own
 * statement: they commit together with the record in one round trip, without an explicit transaction.
 */
export interface CompanionWrite {
  ctes: string;
  bindings: readonly unknown[];
}

export async function appendProvenanceBatch(
  db: Knex,
  inputs: readonly TenantProvenanceInput[],
  companion?: CompanionWrite,
): Promise<LedgerAnchor[]> {
  if (inputs.length === 0) return [];
  const call = ledgerAppendCall(inputs);
  // One statement, so one round trip: ledger_append (migrations/20261123000200_ledger.ts) takes the append
  // lock shared, reads the open block after it, inserts the records and their events, and returns every
  // record's anchor, new or appended before.
  const { rows: appended } = await db.raw<{ rows: { transaction_id: string; block_number: number }[] }>(
    `${companion ? `with ${companion.ctes} ` : ''}select * from ${call.sql}`,
    [...(companion?.bindings ?? []), ...call.bindings] as Knex.RawBinding[],
  );
  const anchors = new Map(appended.map((row) => [row.transaction_id, row.block_number]));

  return inputs.map(({ entry }) => {
    const transaction_id = transactionIdFor(entry.subject_id, entry.step_id);
    const block_number = anchors.get(transaction_id);
    if (block_number === undefined)
      throw new LedgerAppendError(`record ${transaction_id} was neither appended nor found`);
    return { transaction_id, block_number };
  });
}

/**
 * The call of ledger_append() for these records, to select from: `select * from <sql>` appends them, or, in a
 * statement that writes the rows they describe, a CTE that those writes read the anchors from. It yields
 * one row per record, with its transaction id and block.
 */
export function ledgerAppendCall(inputs: readonly TenantProvenanceInput[]): {
  sql: string;
  bindings: readonly unknown[];
} {
  const rows = new Map<string, Record<string, unknown>>();
  for (const { entry, events, organization_id } of inputs) {
    if (!entry.subject_id || !entry.step_id)
      throw new LedgerAppendError('a provenance record needs a subject_id and a step_id');
    if (Number.isNaN(Date.parse(entry.timestamp)))
      throw new LedgerAppendError(`${JSON.stringify(entry.timestamp)} is not an ISO 8601 timestamp`);
    const transaction_id = transactionIdFor(entry.subject_id, entry.step_id);
    if (rows.has(transaction_id)) continue;
    rows.set(transaction_id, {
      ord: rows.size,
      transaction_id,
      subject_id: entry.subject_id,
      step_id: entry.step_id,
      body: canonicalJson(entry),
      action: entry.action,
      actor_type: entry.actor.type,
      recorded_at: entry.timestamp,
      events: (events ?? []).map((event) => ({
        event_id: `evt_${randomUUID()}`,
        event: event.event,
        data: event.data,
      })),
      organization_id,
    });
  }
  return { sql: 'ledger_append(?::jsonb, ?)', bindings: [JSON.stringify([...rows.values()]), LEDGER_LOCKS.append] };
}

export interface ProvenanceRecord {
  entry: ProvenanceEntry;
  anchor: LedgerAnchor;
  /** Hex of the RFC 6962 leaf hash of the record's canonical body. */
  hash: string;
  /** The record's position in the log, once its block is sealed. */
  leaf_index: number | null;
  /** The canonical JSON body the leaf hash covers. */
  body: string;
  seq: number;
}

function toRecord(row: EntryRow): ProvenanceRecord {
  return {
    entry: JSON.parse(row.body) as ProvenanceEntry,
    anchor: { transaction_id: row.transaction_id, block_number: row.block_number },
    hash: row.leaf_hash.toString('hex'),
    leaf_index: row.leaf_index,
    body: row.body,
    seq: row.seq,
  };
}

const entryColumns = (db: Knex) =>
  db('ledger_entries as e')
    .leftJoin('ledger_leaves as l', 'l.transaction_id', 'e.transaction_id')
    .select<EntryRow[]>(
      'e.seq',
      'e.transaction_id',
      'e.subject_id',
      'e.step_id',
      'e.body',
      'e.leaf_hash',
      'e.block_number',
      'e.created_at',
      'l.leaf_index',
    );

/** The records of one subject (a routing, an approval…), in the order they were appended. */
/** organizationId: only that organization's records (a caller's view); absent: all (the ledger's own tools). */
export async function listProvenanceForSubject(
  db: Knex,
  subjectId: string,
  organizationId?: string,
): Promise<ProvenanceRecord[]> {
  const query = entryColumns(db).where('e.subject_id', subjectId);
  if (organizationId !== undefined) query.where('e.organization_id', organizationId);
  const rows: EntryRow[] = await query.orderBy('e.seq', 'asc');
  return rows.map(toRecord);
}

/** Within an organization when one is named: another tenant's record is not found. */
export async function findProvenanceRecord(
  db: Knex,
  transactionId: string,
  organizationId?: string,
): Promise<ProvenanceRecord | undefined> {
  const query = entryColumns(db).where('e.transaction_id', transactionId);
  if (organizationId !== undefined) query.where('e.organization_id', organizationId);
  const row: EntryRow | undefined = await query.first();
  return row && toRecord(row);
}

export async function findProvenanceRecordByLeafHash(
  db: Knex,
  organizationId: string,
  leafHash: Buffer,
): Promise<ProvenanceRecord | undefined> {
  const row: EntryRow | undefined = await entryColumns(db)
    .where('e.leaf_hash', leafHash)
    .andWhere('e.organization_id', organizationId)
    .orderBy('e.seq', 'asc')
    .first();
  return row && toRecord(row);
}

export interface ProvenanceQuery {
  /** Words to find in records (Postgres full-text search over the canonical body), an exact subject id, transaction id or leaf hash; `*` for any. */
  text: string;
  subject_id?: string | undefined;
  action?: string | undefined;
  actor_type?: string | undefined;
  /** A DID or agent id of the record's actor. */
  actor_id?: string | undefined;
  from?: Date | undefined;
  to?: Date | undefined;
  sealed?: boolean | undefined;
}

/** Records matching a query, newest first, for the platform's provenance search. */
export async function queryProvenance(
  db: Knex,
  organizationId: string,
  query: ProvenanceQuery,
  page: PageRequest,
): Promise<Page<EntryRow>> {
  const builder = entryColumns(db).where('e.organization_id', organizationId);
  const text = query.text.trim();
  if (text !== '*') {
    builder.where((match) => {
      match
        .where('e.subject_id', text)
        .orWhereRaw(`to_tsvector('simple', e.body) @@ websearch_to_tsquery('simple', ?)`, [text]);
      if (/^[0-9a-f]{64}$/i.test(text))
        match.orWhere('e.transaction_id', text.toLowerCase()).orWhere('e.leaf_hash', Buffer.from(text, 'hex'));
    });
  }
  if (query.subject_id) builder.where('e.subject_id', query.subject_id);
  if (query.action) builder.where('e.action', query.action);
  if (query.actor_type) builder.where('e.actor_type', query.actor_type);
  if (query.actor_id)
    builder.whereRaw(`(e.body::jsonb -> 'actor' ->> 'did' = ? or e.body::jsonb -> 'actor' ->> 'agent_id' = ?)`, [
      query.actor_id,
      query.actor_id,
    ]);
  if (query.from) builder.where('e.recorded_at', '>=', query.from);
  if (query.to) builder.where('e.recorded_at', '<=', query.to);
  if (query.sealed !== undefined) builder[query.sealed ? 'whereNotNull' : 'whereNull']('l.leaf_index');
  return paginate<EntryRow>(builder, page);
}

export function provenanceRecordOf(row: EntryRow): ProvenanceRecord {
  return toRecord(row);
}

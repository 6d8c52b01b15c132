import type { Knex } from 'knex';
import { listProvenanceForSubject } from '../../db/ledger';
import type { ProvenanceEntry } from '../../domain/provenance/records';

/**
 * The one place the orchestration tests read the ledger's tables: the records of a subject, and the
 * events appended with them. (The ledger's storage is another workstream's; when it changes, only this
 * file follows.)
 */
export async function provenanceEntries(db: Knex, subjectId: string): Promise<ProvenanceEntry[]> {
  return (await listProvenanceForSubject(db, subjectId)).map((record) => record.entry);
}

export async function provenanceEntry(
  db: Knex,
  subjectId: string,
  stepId: string,
): Promise<ProvenanceEntry | undefined> {
  return (await provenanceEntries(db, subjectId)).find((entry) => entry.step_id === stepId);
}

/** The kinds of the events appended with a subject's records (with one step's, when named), sorted. */
export async function eventKinds(db: Knex, subjectId: string, stepId?: string): Promise<string[]> {
  const query = db('outbox_events as o')
    .join('ledger_entries as p', 'p.seq', 'o.provenance_seq')
    .where('p.subject_id', subjectId)
    .select('o.event');
  if (stepId) query.where('p.step_id', stepId);
  return (await query).map((row: { event: string }) => row.event).sort();
}

/** The events appended with one step's record of a subject, with their data. */
export async function stepEvents(
  db: Knex,
  subjectId: string,
  stepId: string,
): Promise<Array<{ event: string; data: Record<string, unknown> }>> {
  return db('outbox_events as o')
    .join('ledger_entries as p', 'p.seq', 'o.provenance_seq')
    .where({ 'p.subject_id': subjectId, 'p.step_id': stepId })
    .select('o.event', 'o.data')
    .orderBy('o.event');
}

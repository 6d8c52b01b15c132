import { randomUUID } from 'node:crypto';
import { isDeepStrictEqual } from 'node:util';
import type { Knex } from 'knex';
import { EVENT_SORT_COLUMNS, listEvents } from '../../db/events';
import { appendProvenance } from '../../db/ledger';
import type { EventKind } from '../../domain/provenance/events';
import { ORCH_CORE_DID } from '../../domain/provenance/records';
import { DEFAULT_ORGANIZATION_ID } from '../../domain/common/organizations';

/**
 * Emits events the way every emitter does: a provenance record and its events in one appendProvenance.
 * Returns the event ids, in the order given.
 */
export async function emitEvents(
  db: Knex,
  events: Array<{ event: EventKind; data?: Record<string, unknown> }>,
  subjectId = `test_${randomUUID()}`,
): Promise<string[]> {
  await appendProvenance(db, {
    entry: {
      subject_id: subjectId,
      step_id: 'emitted',
      timestamp: new Date().toISOString(),
      actor: { type: 'orch_core', did: ORCH_CORE_DID },
      action: 'test_emitted',
      input_data: {},
      output_data: {},
      reasoning: 'emitted by a test',
    },
    events: events.map(({ event, data }) => ({ event, data: data ?? { subject_id: subjectId } })),
  });
  const { data: rows } = await listEvents(
    db,
    DEFAULT_ORGANIZATION_ID,
    { limit: 100, sort: [{ column: EVENT_SORT_COLUMNS.event_id, direction: 'asc' }] },
    { subject_id: subjectId },
  );
  // The outbox keeps no order within one record; match each row back to the event it came from.
  const unmatched = [...rows];
  return events.map(({ event, data }) => {
    const index = unmatched.findIndex(
      (row) => row.event === event && isDeepStrictEqual(row.data, data ?? { subject_id: subjectId }),
    );
    return unmatched.splice(index, 1)[0]!.event_id;
  });
}

import type { Knex } from 'knex';
import { paginate, type Page, type PageRequest } from './pagination';

/** An outbox event with the provenance record it was appended with. */
export interface EventRow {
  event_id: string;
  event: string;
  data: Record<string, unknown>;
  created_at: Date;
  subject_id: string;
  step_id: string;
  transaction_id: string;
  block_number: number;
}

/** Sortable columns of eventsQuery, by their names on the wire. */
export const EVENT_SORT_COLUMNS = { created_at: 'e.created_at', event: 'e.event', event_id: 'e.event_id' };

// The one place events meet the ledger's tables: outbox_events.provenance_seq is the record's arrival
// number in ledger_entries, which also holds the block the record is sealed into.
function eventsQuery(db: Knex): Knex.QueryBuilder {
  return db('outbox_events as e')
    .join('ledger_entries as p', 'p.seq', 'e.provenance_seq')
    .select(
      'e.event_id',
      'e.event',
      'e.data',
      'e.created_at',
      'p.subject_id',
      'p.step_id',
      'p.transaction_id',
      'p.block_number',
    );
}

export async function listEvents(
  db: Knex,
  organizationId: string,
  page: PageRequest,
  filter: {
    events?: string[] | undefined;
    subject_id?: string | undefined;
    created_at__gte?: string | undefined;
    created_at__lte?: string | undefined;
  },
): Promise<Page<EventRow>> {
  const query = eventsQuery(db).where('e.organization_id', organizationId);
  if (filter.events && filter.events.length > 0) query.whereIn('e.event', filter.events);
  if (filter.subject_id) query.where('p.subject_id', filter.subject_id);
  if (filter.created_at__gte) query.where('e.created_at', '>=', filter.created_at__gte);
  if (filter.created_at__lte) query.where('e.created_at', '<=', filter.created_at__lte);
  return paginate<EventRow>(query, page);
}

export async function findEvent(db: Knex, organizationId: string, eventId: string): Promise<EventRow | undefined> {
  return eventsQuery(db)
    .where('e.event_id', eventId)
    .where('e.organization_id', organizationId)
    .first<EventRow | undefined>();
}

import type { Knex } from 'knex';
import { paginate, type Page, type PageRequest } from './pagination';

export interface AuditRow {
  seq: number;
  transaction_id: string;
  subject_id: string;
  body: string;
  action: string;
  recorded_at: Date;
  block_number: number;
  leaf_index: number | null;
  routing_id: string | null;
  task_type: string | null;
  risk_level: string | null;
}

export interface AuditFilter {
  /** Records at or after this instant. */
  from?: Date | undefined;
  /** Records before this instant. */
  before?: Date | undefined;
  actions?: string[] | undefined;
  task_type?: string | undefined;
  routing_id?: string | undefined;
}

/** Every provenance record as an audit entry, joined to its routing (when it belongs to one) for task type and risk. */
export async function listAuditEntries(
  db: Knex,
  organizationId: string,
  page: PageRequest,
  filter: AuditFilter,
): Promise<Page<AuditRow>> {
  const query = db('ledger_entries as e')
    .where('e.organization_id', organizationId)
    .leftJoin('ledger_leaves as l', 'l.transaction_id', 'e.transaction_id')
    .leftJoin('routings as r', 'r.routing_id', 'e.subject_id')
    .select(
      'e.seq',
      'e.transaction_id',
      'e.subject_id',
      'e.body',
      'e.action',
      'e.recorded_at',
      'e.block_number',
      'l.leaf_index',
      'r.routing_id',
      'r.task_type',
      'r.risk_level',
    );
  if (filter.from) query.where('e.recorded_at', '>=', filter.from);
  if (filter.before) query.where('e.recorded_at', '<', filter.before);
  if (filter.actions) query.whereIn('e.action', filter.actions);
  if (filter.task_type) query.where('r.task_type', filter.task_type);
  if (filter.routing_id) query.where('e.subject_id', filter.routing_id);
  return paginate<AuditRow>(query, page);
}

import type { Knex } from 'knex';
import { paginate, type Page, type PageRequest } from './pagination';
import type { RoutingRow } from './routings';

/** Equal to the row's columns, and bounds (__gte/__lte) on the confidence and the creation date. */
export type RoutingFilter = Partial<
  Pick<RoutingRow, 'status' | 'decision' | 'task_type' | 'domain' | 'escalation_level' | 'risk_level'>
> & {
  /** The ai_agent_id. */
  agent?: string | undefined;
  confidence__gte?: number | undefined;
  confidence__lte?: number | undefined;
  date__gte?: string | undefined;
  date__lte?: string | undefined;
};

const HISTORY_COLUMNS = [
  'routing_id',
  'status',
  'decision',
  'reason',
  'task_type',
  'ai_agent_id',
  'ai_confidence',
  'risk_level',
  'domain',
  'routing_mode',
  'escalation_level',
  'assigned_to',
  'fourth_law_triggered',
  'safety_violation_count',
  'rules_triggered',
  'escalated_at',
  'created_at',
  'updated_at',
] as const satisfies ReadonlyArray<keyof RoutingRow>;

export type RoutingHistoryRow = Pick<RoutingRow, (typeof HISTORY_COLUMNS)[number]>;

/** The routings read model filtered by field (bounds by __gte/__lte), as a keyset page. */
export async function listRoutings(
  db: Knex,
  organizationId: string,
  page: PageRequest,
  filter: RoutingFilter,
): Promise<Page<RoutingHistoryRow>> {
  const query = db('routings').select(HISTORY_COLUMNS).where({ organization_id: organizationId });
  const equal = {
    status: filter.status,
    decision: filter.decision,
    task_type: filter.task_type,
    ai_agent_id: filter.agent,
    domain: filter.domain,
    escalation_level: filter.escalation_level,
    risk_level: filter.risk_level,
  };
  for (const [column, value] of Object.entries(equal)) if (value !== undefined) query.where(column, value);
  if (filter.confidence__gte !== undefined) query.where('ai_confidence', '>=', filter.confidence__gte);
  if (filter.confidence__lte !== undefined) query.where('ai_confidence', '<=', filter.confidence__lte);
  if (filter.date__gte !== undefined) query.where('created_at', '>=', filter.date__gte);
  if (filter.date__lte !== undefined) query.where('created_at', '<=', filter.date__lte);
  return paginate<RoutingHistoryRow>(query, page);
}

import type { Knex } from 'knex';
import type { DagStatus } from '../domain/dags/graph';
import type { DagState } from '../contracts/run-dag';
import type { Nullable } from '../lib/nullable';
import { paginate, type Page, type PageRequest } from './pagination';
import { upsertProjection } from './projections';

type DagDates = 'created_at' | 'started_at' | 'completed_at' | 'updated_at';

/** A DAG's state as platform_workflows holds it: unset fields null, instants as Date. */
export type DagRow = Nullable<Omit<DagState, DagDates>> & {
  [K in DagDates]: undefined extends DagState[K] ? Date | null : Date;
};

export async function upsertDagProjection(db: Knex, state: DagState, organizationId: string): Promise<void> {
  const row = {
    workflow_id: state.workflow_id,
    version: state.version,
    status: state.status,
    name: state.name,
    requested_by: state.requested_by,
    agent_ids: state.agent_ids,
    nodes: JSON.stringify(state.nodes),
    edges: JSON.stringify(state.edges),
    error: state.error === undefined ? null : JSON.stringify(state.error),
    provenance_id: state.provenance_id ?? null,
    created_at: state.created_at,
    started_at: state.started_at ?? null,
    completed_at: state.completed_at ?? null,
    updated_at: state.updated_at,
  } satisfies Record<keyof DagState, unknown>;
  await upsertProjection(
    db,
    'platform_workflows',
    { key: 'workflow_id', once: ['created_at', 'organization_id'] },
    { ...row, organization_id: organizationId },
  );
}

export async function findDagById(db: Knex, organizationId: string, workflowId: string): Promise<DagRow | undefined> {
  return db<DagRow>('platform_workflows')
    .where('workflow_id', workflowId)
    .andWhere('organization_id', organizationId)
    .first();
}

export async function listDags(
  db: Knex,
  organizationId: string,
  page: PageRequest,
  filter: Partial<Pick<DagState, 'status'>> & { agent_id?: DagState['agent_ids'][number] | undefined },
): Promise<Page<DagRow>> {
  const query = db<DagRow>('platform_workflows').select('*').where('organization_id', organizationId);
  if (filter.status) query.where({ status: filter.status });
  if (filter.agent_id) query.whereRaw('? = any(agent_ids)', [filter.agent_id]);
  return paginate<DagRow>(query, page);
}

export async function countDagsByStatus(db: Knex, organizationId: string, status: DagStatus): Promise<number> {
  const [row] = await db('platform_workflows')
    .where({ status, organization_id: organizationId })
    .count<{ count: number }[]>({ count: '*' });
  return row?.count ?? 0;
}

const iso = (value: Date | null | undefined) => (value ? new Date(value).toISOString() : undefined);

export function dagFromRow(row: DagRow): DagState {
  return {
    workflow_id: row.workflow_id,
    version: row.version,
    status: row.status,
    name: row.name,
    requested_by: row.requested_by,
    agent_ids: row.agent_ids,
    nodes: row.nodes,
    edges: row.edges,
    ...(row.error ? { error: row.error } : {}),
    ...(row.provenance_id ? { provenance_id: row.provenance_id } : {}),
    created_at: iso(row.created_at)!,
    ...(row.started_at ? { started_at: iso(row.started_at)! } : {}),
    ...(row.completed_at ? { completed_at: iso(row.completed_at)! } : {}),
    updated_at: iso(row.updated_at)!,
  };
}

import type { Knex } from 'knex';
import type { DagStatus } from '../domain/dags/graph';
import { DagState } from '../contracts/aggregates/dag';
import { rowOf } from '../lib/shape';
import { paginate, type Page, type PageRequest } from './pagination';
import { stateOfRow, type ProjectedRow } from './projected-rows';
import { upsertProjection } from './projections';

/** A DAG's state as platform_workflows holds it: unset fields null, instants as Date. */
export type DagRow = ProjectedRow<DagState, 'created_at' | 'started_at' | 'completed_at' | 'updated_at'>;

const dagRow = rowOf(DagState).of;

export async function upsertDagProjection(db: Knex, state: DagState, organizationId: string): Promise<void> {
  // agent_ids is a text[] column, not jsonb: pg writes the array itself.
  const row = { ...dagRow(state), agent_ids: state.agent_ids };
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

export function dagFromRow(row: DagRow): DagState {
  return stateOfRow(DagState, row);
}

import type { Knex } from 'knex';
import type { RoutingRow } from './routings';

export interface TaskRow {
  task_id: string;
  organization_id: string;
  routing_id: string;
  title: string;
  description: string | null;
  task_type: string;
  agent_uri: string | null;
  request: Record<string, unknown>;
  submitted_by: string;
  created_at: Date;
}

/** A task with what its routing shows so far (nothing, until the routing's first step is recorded). */
export interface TaskWithRouting extends TaskRow {
  routing: Pick<
    RoutingRow,
    'status' | 'decision' | 'reason' | 'escalation_level' | 'assigned_to' | 'assigned_at' | 'resolution' | 'updated_at'
  > | null;
}

/** Stores the task once; a retried submission (same task id) finds it there. */
export async function insertTaskIfAbsent(db: Knex, task: Omit<TaskRow, 'created_at'>): Promise<boolean> {
  const inserted = await db('platform_tasks')
    .insert({ ...task, request: JSON.stringify(task.request) })
    .onConflict('task_id')
    .ignore()
    .returning('task_id');
  return inserted.length > 0;
}

export async function findTaskWithRouting(
  db: Knex,
  organizationId: string,
  taskId: string,
): Promise<TaskWithRouting | undefined> {
  return db('platform_tasks as t')
    .leftJoin('routings as r', 'r.routing_id', 't.routing_id')
    .select(
      't.*',
      db.raw(
        `case when r.routing_id is null then null else json_build_object(
           'status', r.status, 'decision', r.decision, 'reason', r.reason, 'escalation_level', r.escalation_level,
           'assigned_to', r.assigned_to, 'assigned_at', r.assigned_at, 'resolution', r.resolution, 'updated_at', r.updated_at) end as routing`,
      ),
    )
    .where('t.task_id', taskId)
    .andWhere('t.organization_id', organizationId)
    .first<TaskWithRouting | undefined>();
}

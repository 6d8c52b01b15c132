import type { Knex } from 'knex';
import { Task } from '../contracts/aggregates/task';
import { rowOf } from '../lib/shape';
import type { RoutingRow } from './routings';

/** A task with what its routing shows so far (nothing, until the routing's first step is recorded). */
export interface TaskWithRouting extends Task {
  routing: Pick<
    RoutingRow,
    'status' | 'decision' | 'reason' | 'escalation_level' | 'assigned_to' | 'assigned_at' | 'resolution' | 'updated_at'
  > | null;
}

/** The table sets created_at. */
const taskRow = rowOf(Task.omit({ created_at: true })).of;

/** Stores the task once; a retried submission (same task id) finds it there. */
export async function insertTaskIfAbsent(db: Knex, task: Omit<Task, 'created_at'>): Promise<boolean> {
  const inserted = await db('platform_tasks').insert(taskRow(task)).onConflict('task_id').ignore().returning('task_id');
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

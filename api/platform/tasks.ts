import type { Knex } from 'knex';
import { findTaskWithRouting } from '../../db/tasks';
import type { RoutingServiceDeps } from '../../services/routing/submit';
import { resourceId } from '../../lib/ids';
import { submitTask } from '../../services/tasks/tasks';
import { Problem } from '../problem';
import type { ApiBuilder } from '../route';
import { routeGroup } from '../route-group';
import {
  SubmitTaskSchema,
  TaskIdParamsSchema,
  TaskSchema,
  TaskStatusSchema,
  taskStatusView,
  taskView,
} from '../schemas/tasks';

const NO_SUCH_TASK = {
  code: 'task_not_found',
  description: 'No such task',
  detail: ({ params }: { params: { task_id: string } }) => `No task ${params.task_id}`,
} as const;

export function registerTaskRoutes(api: ApiBuilder, deps: RoutingServiceDeps & { db: Knex }): void {
  const tasks = routeGroup(api, { tags: ['Tasks'], auth: 'platform:read', rateLimit: 'default' });
  tasks.route({
    method: 'post',
    path: '/v1/tasks',
    operationId: 'submitTask',
    summary: 'Submit a task for routing to the workforce',
    description:
      'Goes through the orchestration routing workflow: the agent offering the required capabilities acts alone when confident enough ' +
      '(Fourth Law: 0.70), otherwise a human holding them is assigned and the escalation chain runs. When none qualifies the task is unassigned: ' +
      'its routing waits in the queue until a qualified reviewer is available.',
    auth: 'platform:write',
    request: { body: SubmitTaskSchema },
    responses: {
      201: { description: 'The task, routed', schema: TaskSchema },
      404: { description: 'agent_uri names no registered agent' },
    },
    handler: async ({ req, body, principal }) => {
      const task_id = resourceId('tsk', principal.id, req.get('idempotency-key'));
      const { organization_id } = principal;
      const outcome = await submitTask(deps, { task_id, submitted_by: principal.id, organization_id }, body);
      if (!outcome.ok) throw new Problem(outcome.code, outcome.detail);
      const task = await findTaskWithRouting(deps.db, organization_id, task_id);
      if (!task) throw new Problem('task_not_found', `No task ${task_id}`);
      return { status: 201, body: taskView(task), headers: { Location: `/v1/tasks/${task_id}` } };
    },
  });

  tasks.get({
    path: '/v1/tasks/{task_id}',
    operationId: 'getTask',
    summary: 'Read a task',
    params: TaskIdParamsSchema,
    found: { description: 'The task', schema: TaskSchema },
    missing: NO_SUCH_TASK,
    find: ({ params, principal }) => findTaskWithRouting(deps.db, principal.organization_id, params.task_id),
    view: taskView,
  });

  tasks.get({
    path: '/v1/tasks/{task_id}/status',
    operationId: 'getTaskStatus',
    summary: 'A task’s status: where its routing stands and who has it',
    params: TaskIdParamsSchema,
    found: { description: 'The status', schema: TaskStatusSchema },
    missing: NO_SUCH_TASK,
    find: ({ params, principal }) => findTaskWithRouting(deps.db, principal.organization_id, params.task_id),
    view: taskStatusView,
  });
}

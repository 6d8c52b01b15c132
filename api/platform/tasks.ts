import type { Knex } from 'knex';
import { findTaskWithRouting, type TaskWithRouting } from '../../db/tasks';
import { routingProgress } from '../../domain/routing/progress';
import { TASK_STATUSES, taskStatus } from '../../domain/tasks/status';
import type { RoutingServiceDeps } from '../../services/routing/submit';
import { resourceId } from '../../lib/ids';
import { submitTask } from '../../services/tasks/tasks';
import { Problem } from '../problem';
import type { ApiBuilder } from '../route';
import { z } from '../schemas/zod';

const unit = z.number().min(0).max(1);

const SubmitTaskSchema = z
  .object({
    title: z.string().min(1).max(200),
    description: z.string().max(10_000).optional(),
    task_type: z.string().min(1).max(200).default('general'),
    required_capabilities: z
      .array(
        z.union([
          z.object({ capability_id: z.string().min(1).max(200), min_weight: unit.default(0) }).strict(),
          z
            .string()
            .min(1)
            .max(200)
            .transform((capability_id) => ({ capability_id, min_weight: 0 })),
        ]),
      )
      .max(50)
      .default([])
      .openapi({
        description:
          'Capability ids as reviewers hold them (a human is matched on these); an agent offers capability://<id>',
      }),
    context: z
      .record(z.string(), z.unknown())
      .default({})
      .openapi({ description: 'Read for risk like a routing’s context (amount, irreversible, …)' }),
    agent_uri: z.string().optional().openapi({
      description: 'The agent proposed for it; default: the first active agent offering every required capability',
    }),
    ai_confidence: unit
      .optional()
      .openapi({ description: 'The agent’s confidence; below 0.70, or absent, a qualified human takes the task' }),
    ai_recommendation: z.string().max(10_000).optional(),
    urgency: z.enum(['low', 'medium', 'high', 'urgent', 'critical']).optional(),
  })
  .strict()
  .openapi('SubmitTaskRequest');

const AssignedToSchema = z
  .object({ type: z.enum(['human', 'ai_agent']), did: z.string(), agent_id: z.string().optional() })
  .nullable();

const TaskSchema = z
  .object({
    task_id: z.string(),
    title: z.string(),
    description: z.string().nullable(),
    task_type: z.string(),
    status: z.enum(TASK_STATUSES),
    routing_id: z.string().openapi({ description: 'Its routing at /v1/orch/routing/{routing_id}' }),
    agent_uri: z.string().nullable(),
    decision: z.string().nullable(),
    reason: z.string().nullable(),
    escalation_level: z.string().nullable(),
    assigned_to: AssignedToSchema,
    submitted_by: z.string(),
    created_at: z.string(),
  })
  .openapi('Task');

const TaskStatusSchema = z
  .object({
    task_id: z.string(),
    status: z.enum(TASK_STATUSES),
    routing_status: z.string().nullable(),
    assigned_to: AssignedToSchema,
    progress: z.object({ steps_completed: z.number().int(), steps_total: z.number().int(), current_step: z.string() }),
    resolution: z.object({ reviewer_did: z.string(), outcome: z.string(), resolved_at: z.string() }).nullable(),
    updated_at: z.string(),
  })
  .openapi('TaskStatus');

const TaskIdParamsSchema = z.object({
  task_id: z.string().regex(/^tsk_[A-Za-z0-9-]{1,64}$/, 'must be a task id (tsk_…)'),
});

function assignedTo(task: TaskWithRouting) {
  const assigned = task.routing?.assigned_to;
  return assigned
    ? { type: assigned.type, did: assigned.did, ...(assigned.agent_id ? { agent_id: assigned.agent_id } : {}) }
    : null;
}

function taskView(task: TaskWithRouting) {
  return {
    task_id: task.task_id,
    title: task.title,
    description: task.description,
    task_type: task.task_type,
    status: taskStatus(task.routing ?? undefined),
    routing_id: task.routing_id,
    agent_uri: task.agent_uri,
    decision: task.routing?.decision ?? null,
    reason: task.routing?.reason ?? null,
    escalation_level: task.routing?.escalation_level ?? null,
    assigned_to: assignedTo(task),
    submitted_by: task.submitted_by,
    created_at: task.created_at.toISOString(),
  };
}

export function registerTaskRoutes(api: ApiBuilder, deps: RoutingServiceDeps & { db: Knex }): void {
  const find = async (organizationId: string, taskId: string) => {
    const task = await findTaskWithRouting(deps.db, organizationId, taskId);
    if (!task) throw new Problem('task_not_found', `No task ${taskId}`);
    return task;
  };

  api.route({
    method: 'post',
    path: '/v1/tasks',
    operationId: 'submitTask',
    summary: 'Submit a task for routing to the workforce',
    description:
      'Goes through the orchestration routing workflow: the agent offering the required capabilities acts alone when confident enough ' +
      '(Fourth Law: 0.70), otherwise a human holding them is assigned and the escalation chain runs. When none qualifies the task is unassigned: ' +
      'its routing waits in the queue until a qualified reviewer is available.',
    tags: ['Tasks'],
    auth: 'platform:write',
    rateLimit: 'default',
    request: { body: SubmitTaskSchema },
    responses: {
      201: { description: 'The task, routed', schema: TaskSchema },
      404: { description: 'agent_uri names no registered agent' },
    },
    handler: async ({ req, body, principal }) => {
      const task_id = resourceId('tsk', principal.id, req.get('idempotency-key'));
      const outcome = await submitTask(
        deps,
        { task_id, submitted_by: principal.id, organization_id: principal.organization_id },
        body,
      );
      if (!outcome.ok) throw new Problem(outcome.code, outcome.detail);
      return {
        status: 201,
        body: taskView(await find(principal.organization_id, task_id)),
        headers: { Location: `/v1/tasks/${task_id}` },
      };
    },
  });

  api.route({
    method: 'get',
    path: '/v1/tasks/{task_id}',
    operationId: 'getTask',
    summary: 'Read a task',
    tags: ['Tasks'],
    auth: 'platform:read',
    rateLimit: 'default',
    request: { params: TaskIdParamsSchema },
    responses: { 200: { description: 'The task', schema: TaskSchema }, 404: { description: 'No such task' } },
    handler: async ({ params, principal }) => ({
      status: 200,
      body: taskView(await find(principal.organization_id, params.task_id)),
    }),
  });

  api.route({
    method: 'get',
    path: '/v1/tasks/{task_id}/status',
    operationId: 'getTaskStatus',
    summary: 'A task’s status: where its routing stands and who has it',
    tags: ['Tasks'],
    auth: 'platform:read',
    rateLimit: 'default',
    request: { params: TaskIdParamsSchema },
    responses: { 200: { description: 'The status', schema: TaskStatusSchema }, 404: { description: 'No such task' } },
    handler: async ({ params, principal }) => {
      const task = await find(principal.organization_id, params.task_id);
      const routing = task.routing;
      const resolution = routing?.resolution;
      return {
        status: 200,
        body: {
          task_id: task.task_id,
          status: taskStatus(routing ?? undefined),
          routing_status: routing?.status ?? null,
          assigned_to: assignedTo(task),
          progress: routingProgress(routing?.status ?? 'pending', routing?.decision ?? undefined),
          resolution: resolution
            ? {
                reviewer_did: resolution.reviewer_did,
                outcome: resolution.outcome,
                resolved_at: resolution.resolved_at,
              }
            : null,
          updated_at: new Date(routing?.updated_at ?? task.created_at).toISOString(),
        },
      };
    },
  });
}

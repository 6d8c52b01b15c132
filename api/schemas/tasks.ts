import { Task } from '../../contracts/aggregates/task';
import type { TaskWithRouting } from '../../db/tasks';
import { routingProgress } from '../../domain/routing/progress';
import { TASK_STATUSES, taskStatus } from '../../domain/tasks/status';
import { unit } from './routing';
import { z } from './zod';

export const SubmitTaskSchema = z
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

const task = Task.shape;

/** The task's fields (in its order, organization_id and the request kept internal) and where its routing stands. */
export const TaskSchema = z
  .object({
    task_id: task.task_id,
    title: task.title,
    description: task.description,
    task_type: task.task_type,
    status: z.enum(TASK_STATUSES),
    routing_id: task.routing_id,
    agent_uri: task.agent_uri,
    decision: z.string().nullable(),
    reason: z.string().nullable(),
    escalation_level: z.string().nullable(),
    assigned_to: AssignedToSchema,
    submitted_by: task.submitted_by,
    created_at: z.string(),
  })
  .openapi('Task');

export const TaskStatusSchema = z
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

export const TaskIdParamsSchema = z.object({
  task_id: z.string().regex(/^tsk_[A-Za-z0-9-]{1,64}$/, 'must be a task id (tsk_…)'),
});

function assignedTo(task: TaskWithRouting): z.output<typeof AssignedToSchema> {
  const assigned = task.routing?.assigned_to;
  return assigned
    ? { type: assigned.type, did: assigned.did, ...(assigned.agent_id ? { agent_id: assigned.agent_id } : {}) }
    : null;
}

export function taskView(task: TaskWithRouting): z.output<typeof TaskSchema> {
  const { routing } = task;
  return {
    task_id: task.task_id,
    title: task.title,
    description: task.description,
    task_type: task.task_type,
    status: taskStatus(routing ?? undefined),
    routing_id: task.routing_id,
    agent_uri: task.agent_uri,
    decision: routing?.decision ?? null,
    reason: routing?.reason ?? null,
    escalation_level: routing?.escalation_level ?? null,
    assigned_to: assignedTo(task),
    submitted_by: task.submitted_by,
    created_at: task.created_at.toISOString(),
  };
}

export function taskStatusView(task: TaskWithRouting): z.output<typeof TaskStatusSchema> {
  const { routing } = task;
  const resolution = routing?.resolution;
  return {
    task_id: task.task_id,
    status: taskStatus(routing ?? undefined),
    routing_status: routing?.status ?? null,
    assigned_to: assignedTo(task),
    progress: routingProgress(routing?.status ?? 'pending', routing?.decision ?? undefined),
    resolution: resolution
      ? { reviewer_did: resolution.reviewer_did, outcome: resolution.outcome, resolved_at: resolution.resolved_at }
      : null,
    updated_at: new Date(routing?.updated_at ?? task.created_at).toISOString(),
  };
}

import { EXECUTION_STATUSES } from '../../domain/executions/agent-calls';
import { ExecutionState } from '../../contracts/aggregates/execution';
import { viewOf } from '../../lib/shape';
import { EXECUTION_VIEW } from '../../services/executions/view';
import { DidSchema, listQuerySchema } from './common';
import { z } from './zod';

// Built here, after ./zod has added .openapi to every schema made from now on.
export const ExecutionSchema = viewOf(ExecutionState, EXECUTION_VIEW).schema.openapi('Execution');

const AttemptSchema = z.object({
  kind: z.enum(['agent', 'callback']),
  attempt: z.number().int(),
  outcome: z.enum(['in_flight', 'succeeded', 'retryable_failure', 'failed', 'cancelled']),
  status_code: z.number().int().nullable(),
  error: z.string().nullable(),
  started_at: z.string(),
  finished_at: z.string().nullable(),
  duration_ms: z.number().int().nullable(),
});

export const ExecutionDetailSchema = ExecutionSchema.extend({
  attempts: z
    .array(AttemptSchema)
    .openapi({ description: 'Every attempt of the agent call and of the callback, as the activities logged them' }),
}).openapi('ExecutionDetail');

export const AgentCallResponseSchema = ExecutionSchema.extend({
  approval_required: z.boolean().openapi({
    description:
      'The agent’s policy wanted a human’s approval first: the execution stays queued until approval_id is answered',
  }),
}).openapi('AgentCallAccepted');

export const ExecutionIdParamsSchema = z.object({
  execution_id: z.string().regex(/^exe_[A-Za-z0-9-]{1,64}$/, 'must be an execution id (exe_…)'),
});

export const ListExecutionsQuerySchema = listQuerySchema.extend({
  status: z.enum(EXECUTION_STATUSES).optional(),
  agent_id: z.string().min(1).optional().openapi({ description: 'An agent id (agt_…) or agent URI' }),
});

export const CancelExecutionSchema = z
  .object({
    cancelled_by: DidSchema.optional().openapi({ description: 'Omitted (the variant with a reason only): the caller' }),
    reason: z.string().max(10_000).optional(),
  })
  .strict()
  .openapi('CancelExecutionRequest');

export const ProgressReportSchema = z
  .object({
    progress_percent: z.number().int().min(0).max(100),
    progress_message: z.string().max(2000).optional(),
  })
  .strict()
  .openapi('ProgressReport');

export const EXECUTION_SORTABLE = { queued_at: 'e.queued_at', completed_at: 'e.completed_at' };

export const CallbackSecretSchema = z
  .object({
    id: z.string(),
    secret: z.string().openapi({
      description: 'Shown only here. Verify X-Svc-Signature: HMAC-SHA256 with this secret over `<t>.<raw body>`',
    }),
    created_at: z.string(),
    previous_secrets_expire_at: z
      .string()
      .nullable()
      .openapi({ description: 'Until then the previous secrets sign too (one v1 each)' }),
  })
  .openapi('CallbackSigningSecret');

export const CallbackSecretListSchema = z
  .object({
    data: z.array(
      z.object({ id: z.string(), hint: z.string(), created_at: z.string(), expires_at: z.string().nullable() }),
    ),
  })
  .openapi('CallbackSigningSecretList');

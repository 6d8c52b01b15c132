import { EXECUTION_STATUSES } from '../../domain/executions/agent-calls';
import { RISK_LEVELS } from '../../domain/routing/risk';
import { RiskFactorSchema } from './approvals';
import { DidSchema, listQuerySchema } from './common';
import { z } from './zod';

const JsonObjectSchema = z.record(z.string(), z.unknown());

export const ExecutionSchema = z
  .object({
    id: z.string().openapi({ example: 'exe_3f0c…' }),
    status: z.enum(EXECUTION_STATUSES),
    task_id: z.string().nullable(),
    agent_id: z.string().openapi({ description: 'The registered agent (agt_…)' }),
    agent_uri: z.string(),
    capability_uri: z.string(),
    requester_passport_id: z.string(),
    parameters: JsonObjectSchema.openapi({
      description: 'What the agent receives (with an approver’s modified_params applied)',
    }),
    risk_level: z.enum(RISK_LEVELS),
    risk_factors: z.array(RiskFactorSchema),
    approval_id: z
      .string()
      .nullable()
      .openapi({ description: 'The approval the call waited for, when the agent’s policy asked for one' }),
    workflow_id: z.string().nullable(),
    node_id: z.string().nullable(),
    result_json: JsonObjectSchema.nullable(),
    error_json: JsonObjectSchema.nullable().openapi({
      description: 'type (agent_rejected, agent_error, agent_unreachable, approval_rejected, …), message, status',
    }),
    progress_percent: z.number().int(),
    progress_message: z.string().nullable(),
    callback_url: z.string().nullable(),
    callback_success: z
      .boolean()
      .nullable()
      .openapi({ description: 'null until the callback is delivered or given up' }),
    callback_attempts: z.number().int(),
    max_attempts: z.number().int(),
    current_attempt: z.number().int(),
    cancelled_by: z.string().nullable(),
    cancel_reason: z.string().nullable(),
    provenance_id: z.string().nullable(),
    queued_at: z.string(),
    started_at: z.string().nullable(),
    completed_at: z.string().nullable(),
    updated_at: z.string(),
  })
  .openapi('Execution');

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

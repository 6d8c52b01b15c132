import { URGENCIES } from '../../domain/rules/escalation-rules';
import { ROUTING_DECISIONS, ROUTING_MODES, ESCALATION_LEVELS } from '../../domain/routing/decision';
import { AgentIdSchema } from './agents';
import { LedgerAnchorSchema } from './common';
import { AssigneeSchema, CapabilityMatchSchema, QueuedForSchema, RoutingRequestSchema, unit } from './routing';
import { z } from './zod';

export const AgentHeadersSchema = z.object({
  'x-agent-id': AgentIdSchema.optional().openapi({
    description: 'The calling agent’s URN; required unless the bearer token is the agent’s own API key',
  }),
});

const CONFIDENCE_HEADER = /^(0(\.\d{1,12})?|1(\.0{1,12})?|\.\d{1,12})$/;

export const AgentConfidenceHeadersSchema = AgentHeadersSchema.extend({
  'x-confidence-score': z
    .string()
    .trim()
    .regex(CONFIDENCE_HEADER, 'must be a number from 0 to 1')
    .transform(Number)
    .optional()
    // The transform hides the regex from the document, so the pattern is stated again.
    .openapi({
      type: 'string',
      pattern: CONFIDENCE_HEADER.source,
      description: 'The agent’s confidence, 0 to 1; must agree with the body’s when both are sent',
    }),
});

const TaskIdSchema = z.string().min(1).max(200);

export const AgentTaskParamsSchema = z.object({
  task_id: TaskIdSchema.openapi({
    description: 'The agent’s own id for the task, as it routed it with POST /v1/orch/route',
  }),
});
const taskFields = {
  context: z
    .record(z.string(), z.unknown())
    .default({})
    .openapi({ description: 'Free-form; read for risk, domain, boundaries and rules' }),
  ai_recommendation: RoutingRequestSchema.shape.ai_recommendation,
  required_capabilities: RoutingRequestSchema.shape.required_capabilities.openapi({
    description: 'What the human who may take over must hold',
  }),
  routing_mode: z
    .enum(ROUTING_MODES)
    .optional()
    .openapi({ description: 'Default escalation: an autonomous routing stays open to /confidence and /escalate' }),
};

export const AgentRouteRequestSchema = z
  .object({
    task_id: TaskIdSchema.openapi({
      description: 'The agent’s own id for the task; routing it again answers with its first decision',
    }),
    task_type: z.string().min(1).max(200).default('unspecified'),
    ai_assessment: z
      .object({
        can_handle: z.boolean().optional(),
        confidence: unit.optional(),
        uncertainty_reason: z.string().max(2000).optional(),
      })
      .strict()
      .default({}),
    escalation_recommendation: z.boolean().optional().openapi({ description: 'The agent asks for a human' }),
    human_context: z
      .string()
      .max(10_000)
      .optional()
      .openapi({ description: 'What the human who takes over should know' }),
    ...taskFields,
  })
  .strict()
  .openapi('AgentRouteRequest');

export const AgentRouteResponseSchema = z
  .object({
    routing_id: z.string(),
    task_id: z.string(),
    routing_decision: z.enum(ROUTING_DECISIONS),
    reason: z.string().openapi({ example: 'ai_confidence_below_threshold' }),
    assigned_human: z.string().nullable().openapi({
      description:
        'The DID of the human assigned; null when the agent acts alone, or while the task waits for a qualified reviewer (see queued)',
    }),
    queued: QueuedForSchema.optional(),
    ai_context_provided: z.boolean().openapi({
      description:
        'A human takes over and the agent’s context (human_context, uncertainty reason, recommendation) goes with the task',
    }),
    fourth_law_triggered: z.boolean(),
    escalation_level: z.enum(ESCALATION_LEVELS),
    estimated_response_time: z.number().int().openapi({ description: 'Seconds' }),
  })
  .openapi('AgentRouteResponse');

export const BatchRouteItemSchema = z
  .object({
    task_id: TaskIdSchema.openapi({ description: 'Unique within the batch' }),
    type: z.string().min(1).max(200),
    confidence: unit,
    can_handle: z.boolean().optional(),
    escalation_recommendation: z.boolean().optional(),
    human_context: z.string().max(10_000).optional(),
    ...taskFields,
  })
  .strict()
  .openapi('BatchRouteItem');

export type BatchRouteItem = z.infer<typeof BatchRouteItemSchema>;

// Items are validated one by one, so that an invalid one fails alone; the document still shows their shape.
const BatchRouteItemDocumented = z
  .unknown()
  .openapi({ $ref: '#/components/schemas/BatchRouteItem' } as { description?: string });

export const BatchRouteRequestSchema = z
  .object({
    tasks: z.array(BatchRouteItemDocumented).min(1).max(100).openapi({
      description:
        'Each a BatchRouteItem. An item that is not valid (or repeats an earlier task_id) fails on its own, as a validation_failed problem in its result; the others are routed',
    }),
  })
  .strict()
  .openapi('BatchRouteRequest');

const ItemProblemSchema = z
  .object({
    type: z.string(),
    title: z.string(),
    status: z.number().int(),
    detail: z.string().optional(),
    errors: z.array(z.object({ field: z.string(), code: z.string(), message: z.string() })).optional(),
  })
  .catchall(z.unknown());

const itemIndex = z.number().int().openapi({ description: 'The item’s position in the request’s tasks' });

export const BatchRouteResponseSchema = z
  .object({
    data: z.array(
      z.union([
        AgentRouteResponseSchema.extend({ index: itemIndex, status: z.literal('routed') }),
        z.object({
          index: itemIndex,
          task_id: z.string().optional().openapi({ description: 'Absent when the item names none' }),
          status: z.literal('failed'),
          routing_id: z.string().optional(),
          error: ItemProblemSchema.openapi({
            description:
              'The problem the item alone met: validation_failed (400, with errors as POST /route gives them) or service_unavailable',
          }),
        }),
      ]),
    ),
    summary: z.object({ total: z.number().int(), routed: z.number().int(), failed: z.number().int() }),
  })
  .openapi('BatchRouteResponse');

export const ConfidenceRequestSchema = z
  .object({
    task_id: TaskIdSchema,
    confidence: unit,
    proceed_autonomously: z
      .boolean()
      .default(true)
      .openapi({ description: 'The agent means to act alone on this confidence' }),
    reason: z.string().max(2000).optional(),
  })
  .strict()
  .openapi('ConfidenceReport');

export const ConfidenceResponseSchema = z
  .object({
    routing_id: z.string(),
    task_id: z.string(),
    confidence: z.number(),
    action_allowed: z.boolean().openapi({ description: 'The agent may act alone' }),
    fourth_law_triggered: z.boolean(),
    status: z.string().openapi({
      description: 'The routing’s status; queued: the task waits for a qualified human and the agent may not act alone',
    }),
    assigned_to: AssigneeSchema.nullable(),
    suggested_reviewers: z.array(z.string()),
    ledger_anchor: LedgerAnchorSchema,
  })
  .openapi('ConfidenceResponse');

export const EscalateRequestSchema = z
  .object({
    task_id: TaskIdSchema,
    reason: z.string().min(1).max(2000),
    urgency: z.enum(URGENCIES).optional(),
    target_capability: z
      .string()
      .min(1)
      .max(200)
      .optional()
      .openapi({ description: 'A capability the human must hold, besides the task’s own' }),
    min_weight: unit.optional(),
    context: z.record(z.string(), z.unknown()).optional(),
  })
  .strict()
  .openapi('EscalateRequest');

export const EscalationResponseSchema = z
  .object({
    escalation_id: z.string(),
    routing_id: z.string(),
    status: z
      .enum(['assigned', 'queued'])
      .openapi({ description: 'queued: no available reviewer qualifies yet; the task waits for one (see queued)' }),
    assigned_to: z
      .object({
        type: z.literal('human'),
        did: z.string(),
        covering_for: z.string().optional().openapi({
          description:
            'The reviewer chosen, whom did covers for (a cover in force, POST /v1/covers); absent when none applied',
        }),
        capabilities: z.array(CapabilityMatchSchema),
      })
      .nullable()
      .openapi({ description: 'null while queued' }),
    queued: QueuedForSchema.optional(),
    escalation_level: z.enum(ESCALATION_LEVELS),
    estimated_response_time: z.number().int().openapi({ description: 'Seconds' }),
    escalation_chain: z.array(
      z.object({
        level: z.number().int(),
        did: z.string(),
        timestamp: z.string(),
        escalation_level: z.enum(ESCALATION_LEVELS),
      }),
    ),
    ledger_anchor: LedgerAnchorSchema,
  })
  .openapi('Escalation');

export const LogProvenanceRequestSchema = z
  .object({
    task_id: TaskIdSchema,
    action: z.string().min(1).max(200).openapi({ example: 'ordered_lab_test' }),
    input_data: z.record(z.string(), z.unknown()).default({}),
    output_data: z.record(z.string(), z.unknown()).default({}),
    reasoning: z.string().min(1).max(10_000),
    instance_id: z.string().max(200).optional().openapi({ description: 'Which running instance of the agent acted' }),
  })
  .strict()
  .openapi('LogProvenanceRequest');

export const LoggedProvenanceSchema = z
  .object({
    routing_id: z.string(),
    task_id: z.string(),
    step_id: z.string(),
    logged_at: z.string(),
    ledger_anchor: LedgerAnchorSchema,
    safety_violations: z.array(
      z
        .object({
          boundary_id: z.string(),
          boundary_type: z.string(),
          severity: z.string(),
          description: z.string(),
          reason: z.string(),
        })
        .catchall(z.unknown()),
    ),
  })
  .openapi('LoggedProvenance');

export const BoundariesQuerySchema = z.object({
  action: z.string().min(1).max(200),
  amount: z.coerce.number().optional(),
  domain: z
    .string()
    .min(1)
    .max(63)
    .optional()
    .openapi({ description: 'Default: the domain listing the action as a task type, else general' }),
});

export const BoundaryAnswerSchema = z
  .object({
    agent_id: z.string(),
    action: z.string(),
    domain: z.string(),
    risk_level: z.string(),
    action_allowed: z.boolean(),
    reason: z.string().openapi({ example: 'amount_exceeds_ai_authority' }),
    human_approval_required: z.boolean(),
    approval_tier: z.enum(['none', 'standard', 'senior', 'executive', 'not_permitted']),
    violations: z.array(z.object({ boundary_id: z.string(), reason: z.string(), severity: z.string() })),
  })
  .openapi('BoundaryCheck');

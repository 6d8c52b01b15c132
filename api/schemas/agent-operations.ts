import { URGENCIES } from '../../domain/escalation-rules';
import { ROUTING_DECISIONS, ROUTING_MODES, ESCALATION_LEVELS } from '../../domain/routing-decision';
import { AgentIdSchema } from './agents';
import { LedgerAnchorSchema } from './common';
import { RequiredCapabilitySchema } from './routing';
import { z } from './zod';

const unit = z.number().min(0).max(1);

export const AgentHeadersSchema = z.object({
  'x-agent-id': AgentIdSchema.optional().openapi({ description: 'The calling agent’s URN; required unless the bearer token is the agent’s own API key' }),
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
    .openapi({ type: 'string', pattern: CONFIDENCE_HEADER.source, description: 'The agent’s confidence, 0 to 1; must agree with the body’s when both are sent' }),
});

const TaskIdSchema = z.string().min(1).max(200);
const taskFields = {
  context: z.record(z.string(), z.unknown()).default({}).openapi({ description: 'Free-form; read for risk, domain, boundaries and rules' }),
  ai_recommendation: z.string().max(10_000).optional(),
  required_capabilities: z.array(RequiredCapabilitySchema).max(50).default([]).openapi({ description: 'What the human who may take over must hold' }),
  routing_mode: z.enum(ROUTING_MODES).optional().openapi({ description: 'Default escalation: an autonomous routing stays open to /confidence and /escalate' }),
};

export const AgentRouteRequestSchema = z
  .object({
    task_id: TaskIdSchema.openapi({ description: 'The agent’s own id for the task; routing it again answers with its first decision' }),
    task_type: z.string().min(1).max(200).default('unspecified'),
    ai_assessment: z
      .object({ can_handle: z.boolean().optional(), confidence: unit.optional(), uncertainty_reason: z.string().max(2000).optional() })
      .strict()
      .default({}),
    escalation_recommendation: z.boolean().optional().openapi({ description: 'The agent asks for a human' }),
    human_context: z.string().max(10_000).optional().openapi({ description: 'What the human who takes over should know' }),
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
    assigned_human: z.string().nullable().openapi({ description: 'The DID of the human assigned; null when the agent acts alone' }),
    ai_context_provided: z.boolean().openapi({ description: 'A human takes over and the agent’s context (human_context, uncertainty reason, recommendation) goes with the task' }),
    fourth_law_triggered: z.boolean(),
    escalation_level: z.enum(ESCALATION_LEVELS),
    estimated_response_time: z.number().int().openapi({ description: 'Seconds' }),
  })
  .openapi('AgentRouteResponse');

export const BatchRouteRequestSchema = z
  .object({
    tasks: z
      .array(
        z
          .object({
            task_id: TaskIdSchema,
            type: z.string().min(1).max(200),
            confidence: unit,
            can_handle: z.boolean().optional(),
            escalation_recommendation: z.boolean().optional(),
            human_context: z.string().max(10_000).optional(),
            ...taskFields,
          })
          .strict(),
      )
      .min(1)
      .max(100),
  })
  .strict()
  .superRefine((body, ctx) => {
    const ids = body.tasks.map((task) => task.task_id);
    ids.forEach((id, index) => {
      if (ids.indexOf(id) !== index) ctx.addIssue({ code: 'custom', path: ['tasks', index, 'task_id'], message: `${id} appears twice in the batch` });
    });
  })
  .openapi('BatchRouteRequest');

const ItemProblemSchema = z.object({ type: z.string(), title: z.string(), status: z.number().int(), detail: z.string().optional() }).catchall(z.unknown());

export const BatchRouteResponseSchema = z
  .object({
    data: z.array(
      z.union([
        AgentRouteResponseSchema.extend({ status: z.literal('routed') }),
        z.object({ task_id: z.string(), status: z.literal('failed'), routing_id: z.string().optional(), error: ItemProblemSchema }),
      ]),
    ),
    summary: z.object({ total: z.number().int(), routed: z.number().int(), failed: z.number().int() }),
  })
  .openapi('BatchRouteResponse');

export const ConfidenceRequestSchema = z
  .object({
    task_id: TaskIdSchema,
    confidence: unit,
    proceed_autonomously: z.boolean().default(true).openapi({ description: 'The agent means to act alone on this confidence' }),
    reason: z.string().max(2000).optional(),
  })
  .strict()
  .openapi('ConfidenceReport');

const AssignedSchema = z.object({ type: z.enum(['human', 'ai_agent']), did: z.string() });

export const ConfidenceResponseSchema = z
  .object({
    routing_id: z.string(),
    task_id: z.string(),
    confidence: z.number(),
    action_allowed: z.boolean().openapi({ description: 'The agent may act alone' }),
    fourth_law_triggered: z.boolean(),
    status: z.string(),
    assigned_to: AssignedSchema.nullable(),
    suggested_reviewers: z.array(z.string()),
    ledger_anchor: LedgerAnchorSchema,
  })
  .openapi('ConfidenceResponse');

export const EscalateRequestSchema = z
  .object({
    task_id: TaskIdSchema,
    reason: z.string().min(1).max(2000),
    urgency: z.enum(URGENCIES).optional(),
    target_capability: z.string().min(1).max(200).optional().openapi({ description: 'A capability the human must hold, besides the task’s own' }),
    min_weight: unit.optional(),
    context: z.record(z.string(), z.unknown()).optional(),
  })
  .strict()
  .openapi('EscalateRequest');

export const EscalationResponseSchema = z
  .object({
    escalation_id: z.string(),
    routing_id: z.string(),
    status: z.literal('assigned'),
    assigned_to: z.object({ type: z.literal('human'), did: z.string(), capabilities: z.array(z.object({ capability_id: z.string(), weight: z.number() })) }),
    escalation_level: z.enum(ESCALATION_LEVELS),
    estimated_response_time: z.number().int().openapi({ description: 'Seconds' }),
    escalation_chain: z.array(z.object({ level: z.number().int(), did: z.string(), timestamp: z.string(), escalation_level: z.enum(ESCALATION_LEVELS) })),
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
    safety_violations: z.array(z.object({ boundary_id: z.string(), boundary_type: z.string(), severity: z.string(), description: z.string(), reason: z.string() }).catchall(z.unknown())),
  })
  .openapi('LoggedProvenance');

export const BoundariesQuerySchema = z.object({
  action: z.string().min(1).max(200),
  amount: z.coerce.number().finite().optional(),
  domain: z.string().min(1).max(63).optional().openapi({ description: 'Default: the domain listing the action as a task type, else general' }),
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

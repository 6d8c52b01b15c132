import { RISK_LEVELS } from '../../domain/routing/risk';
import { ESCALATION_LEVELS, ROUTING_DECISIONS, ROUTING_MODES } from '../../domain/routing/decision';
import { ROUTING_STATUSES } from '../../domain/routing/progress';
import { RESOLUTION_OUTCOMES } from '../../contracts/aggregates/routing';
import { DidSchema, LedgerAnchorSchema } from './common';
import { z } from './zod';

/** A confidence, weight or threshold: 0 to 1. */
export const unit = z.number().min(0).max(1);

export const RequiredCapabilitySchema = z
  .union([
    z.object({
      capability_id: z.string().min(1).max(200),
      min_weight: unit.default(0),
      relax_after_seconds: z
        .number()
        .int()
        .min(0)
        .max(2_592_000)
        .optional()
        .openapi({
          description:
            'Seconds the routing waits in the queue for a reviewer holding this capability before it is no longer required ' +
            '(a reviewer holding it is still preferred); the assignment records it as relaxed',
        }),
    }),
    // The spec's alternative body lists capabilities by id alone.
    z
      .string()
      .min(1)
      .max(200)
      .transform((capability_id) => ({ capability_id, min_weight: 0 })),
  ])
  .openapi({ description: '{capability_id, min_weight} or a capability id (min_weight 0)' });

export const RoutingRequestSchema = z
  .object({
    request_id: z.string().min(1).max(200).optional().openapi({ description: "The caller's own id for the request" }),
    task_id: z
      .string()
      .min(1)
      .max(200)
      .optional()
      .openapi({ description: 'Alias of request_id (the spec’s alternative body)' }),
    task_type: z.string().min(1).max(200).default('unspecified'),
    context: z.record(z.string(), z.unknown()).default({}).openapi({
      description: 'Free-form. Read for risk: risk_level, amount, irreversible, contains_personal_data.',
    }),
    ai_agent_id: z.string().min(1).max(300).optional().openapi({ description: 'Defaults to the calling principal' }),
    ai_confidence: unit,
    ai_recommendation: z.string().max(10_000).optional(),
    required_capabilities: z.array(RequiredCapabilitySchema).max(50).default([]),
    safety_requirements: z
      .object({ max_risk_level: z.enum(RISK_LEVELS).optional(), human_oversight_required: z.boolean().optional() })
      .default({}),
    escalation_conditions: z
      .object({
        uncertainty_threshold: unit.optional().openapi({ description: 'Escalate when 1 − ai_confidence exceeds it' }),
        life_safety_flag: z.boolean().optional(),
      })
      .default({}),
    urgency: z
      .enum(['low', 'medium', 'high', 'urgent', 'critical'])
      .optional()
      .openapi({ description: 'Recorded with the task' }),
    routing_mode: z.enum(ROUTING_MODES).default('ai_first').openapi({
      description:
        'ai_first: the AI acts unless a rule or boundary says otherwise; human_required: straight to a human; hybrid: a human confirms at least; escalation: as ai_first, and an autonomous routing stays open to escalation (AUTONOMOUS_ESCALATION_WINDOW_SECONDS)',
    }),
  })
  .strict()
  .openapi('RoutingRequest');

export const CapabilityMatchSchema = z.object({ capability_id: z.string(), weight: z.number() });

const CoveringForSchema = z.string().openapi({
  description:
    'The reviewer the routing was assigned to, whom this holder covers for (a cover in force at the assignment, POST /v1/covers): ' +
    '“Bea, covering for Ada”; absent when no cover applied',
});

const AssignedToSchema = z.object({
  type: z.enum(['human', 'ai_agent']),
  did: z.string(),
  agent_id: z.string().optional(),
  covering_for: CoveringForSchema.optional(),
  capabilities_matched: z.array(CapabilityMatchSchema),
});

/** Who holds a routing, as its status, its history and a confidence report show it. */
export const AssigneeSchema = AssignedToSchema.pick({ type: true, did: true, covering_for: true });

/** A human assignee as views show it: the colleague covering for the reviewer chosen says for whom. */
export const assigneeView = (to: { type: 'human' | 'ai_agent'; did: string; covering_for?: string | undefined }) => ({
  type: to.type,
  did: to.did,
  ...(to.covering_for !== undefined ? { covering_for: to.covering_for } : {}),
});

export const QueuedForSchema = z
  .object({
    reason: z.literal('no_qualified_reviewer'),
    required_capabilities: z.array(z.object({ capability_id: z.string(), min_weight: z.number() })),
    message: z.string().openapi({
      description:
        'For the agent: a human takes over as soon as one is available; it must not act on the task alone meanwhile',
    }),
  })
  .openapi('QueuedForReviewer', {
    description:
      'Present when a human is needed but no available reviewer holds the required capabilities: the routing waits unassigned (status queued), ' +
      'supervisors are told (event routing.queued), its escalation level rises on each level’s timeout (expired after urgent), and it is assigned ' +
      'as soon as a qualified reviewer is registered, updated or freed, or an admin assigns one.',
  });

export const RoutingDecisionSchema = z
  .object({
    routing_id: z.string(),
    decision: z.enum(ROUTING_DECISIONS),
    reason: z.string().openapi({ example: 'ai_confidence_below_threshold' }),
    assigned_to: AssignedToSchema.nullable().openapi({
      description: 'null while the routing waits in the queue for a qualified reviewer (see queued)',
    }),
    queued: QueuedForSchema.optional(),
    escalation_level: z.enum(ESCALATION_LEVELS),
    estimated_response_time: z
      .number()
      .int()
      .openapi({ description: 'Seconds until the assignee is expected to answer' }),
    safety_analysis: z.object({
      risk_level: z.enum(RISK_LEVELS),
      safety_boundaries_checked: z.number().int(),
      ethical_constraints_checked: z.number().int(),
      all_constraints_met: z.boolean(),
    }),
    provenance: z.object({
      decision_made_by: z.string(),
      timestamp: z.string(),
      rule_triggered: z
        .string()
        .openapi({ description: 'The reason that settled the decision, or the id of the escalation rule that did' }),
      ledger_anchor: LedgerAnchorSchema,
    }),
    fourth_law_triggered: z.boolean().optional(),
    rules_triggered: z.array(z.string()).optional().openapi({ description: 'Escalation rules whose conditions held' }),
    rule_conflict: z
      .object({ rule_ids: z.array(z.string()), target_capabilities: z.array(z.string()) })
      .optional()
      .openapi({
        description:
          'Rules of the same, highest priority asked for different reviewers; the task went to a human of its own qualification (reason rule_conflict)',
      }),
  })
  .openapi('RoutingDecision');

export const RoutingIdParamsSchema = z.object({
  routing_id: z
    .string()
    .regex(/^rt_[A-Za-z0-9-]{1,64}$/, 'must be a routing id (rt_…)')
    .openapi({ example: 'rt_3f0c…' }),
});

export const RoutingResolutionSchema = z
  .object({
    routing_id: z.string(),
    status: z.literal('completed'),
    reviewer_did: z.string(),
    outcome: z.enum(RESOLUTION_OUTCOMES),
    comment: z.string().optional(),
    modified_recommendation: z.string().optional(),
    resolved_at: z.string(),
    ledger_anchor: LedgerAnchorSchema,
  })
  .openapi('RoutingResolution');

export const RoutingStatusSchema = z
  .object({
    routing_id: z.string(),
    status: z.enum(ROUTING_STATUSES).openapi({
      description:
        'pending: being decided; queued: a human is needed and none qualified is available yet, it waits unassigned; in_progress: a human holds it; ' +
        'completed: decided autonomously or resolved; expired: nobody resolved it (or, queued, nobody qualified) by the end of the last level',
    }),
    decision: z.enum(ROUTING_DECISIONS).nullable(),
    reason: z.string().nullable(),
    escalation_level: z.enum(ESCALATION_LEVELS),
    assigned_to: AssigneeSchema.nullable(),
    created_at: z.string(),
    assigned_at: z.string().nullable(),
    progress: z.object({ steps_completed: z.number().int(), steps_total: z.number().int(), current_step: z.string() }),
    estimated_completion: z.string().nullable(),
    escalation_chain: z.array(
      z.object({
        level: z.number().int(),
        escalation_level: z.enum(ESCALATION_LEVELS),
        did: z.string(),
        covering_for: CoveringForSchema.optional(),
        timestamp: z.string(),
      }),
    ),
    resolution: RoutingResolutionSchema.pick({
      reviewer_did: true,
      outcome: true,
      comment: true,
      resolved_at: true,
    }).nullable(),
  })
  .openapi('RoutingStatus');

export const ResolveRoutingRequestSchema = z
  .object({
    reviewer_did: DidSchema.optional().openapi({
      description:
        'The reviewer the signed-in person is (their DID, or a reviewer DID linked to their Passport); omitted, the one on the routing’s chain',
    }),
    outcome: z.enum(RESOLUTION_OUTCOMES).openapi({
      description: 'approved: the AI recommendation stands; rejected: it does not; modified: it stands as changed',
    }),
    comment: z.string().max(10_000).optional(),
    modified_recommendation: z.string().min(1).max(10_000).optional(),
  })
  .strict()
  .refine((body) => body.outcome !== 'modified' || body.modified_recommendation !== undefined, {
    path: ['modified_recommendation'],
    message: 'is required when outcome is modified',
  })
  .openapi('ResolveRoutingRequest');

export const AssignRoutingRequestSchema = z
  .object({
    reviewer_did: DidSchema.openapi({ description: 'A registered, available reviewer' }),
    reason: z
      .string()
      .min(1)
      .max(2000)
      .optional()
      .openapi({ description: 'Why this reviewer, recorded with the assignment' }),
  })
  .strict()
  .openapi('AssignRoutingRequest');

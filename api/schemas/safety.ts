import { CONDITION_OPERATORS, conditionProblem } from '../../domain/rules/conditions';
import { RISK_LEVELS, thresholdsIncrease } from '../../domain/routing/risk';
import { OVERALL_ASSESSMENTS } from '../../domain/safety/rule-of-threes';
import { BOUNDARY_TYPES, ENFORCEMENTS, SEVERITIES } from '../../domain/safety/boundaries';
import { REQUIRED_ACTIONS } from '../../domain/safety/verdict';
import { z } from './zod';

const unit = z.number().min(0).max(1);
const scalar = z.union([z.string().max(500), z.number(), z.boolean()]);

export const ConditionSchema = z
  .object({
    condition_type: z
      .string()
      .min(1)
      .max(200)
      .openapi({ description: 'risk_level, domain, ai_confidence, task_type, amount, or context.<field>' }),
    operator: z.enum(CONDITION_OPERATORS),
    value: z.union([scalar, z.array(scalar).max(100)]),
  })
  .strict()
  .superRefine((condition, ctx) => {
    const problem = conditionProblem(condition);
    if (problem) ctx.addIssue({ code: 'custom', message: problem });
  })
  .openapi('Condition');

const RequiredCapabilitySchema = z.object({ capability_id: z.string().min(1).max(200), min_weight: unit }).strict();

const boundaryBase = {
  boundary_id: z.string().regex(/^[a-z0-9][a-z0-9_.:-]{0,99}$/, 'lower-case letters, digits, _ . : -'),
  description: z.string().min(1).max(1000),
  enforcement: z
    .enum(ENFORCEMENTS)
    .openapi({ description: 'strict: a violation forbids the action; advisory: it asks a human to confirm' }),
  severity: z.enum(SEVERITIES),
  exceptions: z.string().max(200).nullable().default(null).openapi({
    description: 'A context flag that, when true, waives the boundary for a human actor (never for an AI agent)',
  }),
  escalation_required: z.boolean(),
  actions: z
    .array(z.string().min(1).max(200))
    .max(100)
    .default([])
    .openapi({ description: 'The actions it governs; empty: all' }),
};

export const BoundarySchema = z
  .discriminatedUnion('type', [
    z
      .object({
        ...boundaryBase,
        type: z.literal('capability_boundary'),
        required_capabilities: z.array(RequiredCapabilitySchema).min(1).max(20),
      })
      .strict(),
    z
      .object({
        ...boundaryBase,
        type: z.literal('safety_boundary'),
        conditions: z.array(ConditionSchema).max(20).default([]),
      })
      .strict(),
    z.object({ ...boundaryBase, type: z.literal('risk_boundary'), max_risk_level: z.enum(RISK_LEVELS) }).strict(),
    z
      .object({
        ...boundaryBase,
        type: z.literal('context_boundary'),
        required_context: z.array(z.string().min(1).max(200)).min(1).max(50),
      })
      .strict(),
  ])
  .openapi('SafetyBoundary', { description: `One of ${BOUNDARY_TYPES.join(', ')}` });

export const RiskThresholdsSchema = z
  .object({ low: unit, medium: unit, high: unit, critical: unit })
  .strict()
  .refine(thresholdsIncrease, { message: 'must increase strictly: low < medium < high < critical, within 0..1' })
  .openapi('RiskThresholds', { description: 'Where each level starts on the 0..1 risk score' });

export const PutSafetyConfigSchema = z
  .object({
    boundaries: z.array(BoundarySchema).max(100),
    risk_thresholds: RiskThresholdsSchema,
    task_types: z
      .array(z.string().min(1).max(200))
      .max(500)
      .default([])
      .openapi({ description: 'Task types that belong to this domain when a task names none' }),
  })
  .strict()
  .superRefine((body, ctx) => {
    const ids = body.boundaries.map((boundary) => boundary.boundary_id);
    ids.forEach((id, index) => {
      if (ids.indexOf(id) !== index)
        ctx.addIssue({ code: 'custom', path: ['boundaries', index, 'boundary_id'], message: `${id} appears twice` });
    });
  })
  .openapi('PutSafetyConfigRequest');

export const SafetyConfigSchema = z
  .object({
    domain: z.string(),
    boundaries: z.array(BoundarySchema),
    risk_thresholds: RiskThresholdsSchema,
    task_types: z.array(z.string()),
    escalation_rules: z
      .number()
      .int()
      .openapi({ description: 'Enabled escalation rules that can apply in this domain' }),
    version: z.number().int(),
    last_updated: z.string(),
  })
  .openapi('SafetyConfig');

export const SafetyCheckRequestSchema = z
  .object({
    action: z.string().min(1).max(200),
    context: z.record(z.string(), z.unknown()).default({}).openapi({
      description:
        'Read for risk (amount, risk_level, irreversible, contains_personal_data, life_safety), the Rule of Threes, context boundaries and domain',
    }),
    actor: z
      .object({
        type: z.enum(['ai_agent', 'human']),
        agent_id: z.string().min(1).max(300).optional(),
        did: z.string().max(300).optional(),
        confidence: unit.optional(),
      })
      .strict(),
  })
  .strict()
  .openapi('SafetyCheckRequest');

const ViolationSchema = z.object({
  boundary_id: z.string(),
  boundary_type: z.enum(BOUNDARY_TYPES),
  severity: z.enum(SEVERITIES),
  description: z.string(),
  reason: z.string(),
  enforcement: z.enum(ENFORCEMENTS),
  escalation_required: z.boolean(),
});

const judgment = z.union([z.boolean(), z.literal('uncertain')]);

export const SafetyCheckResponseSchema = z
  .object({
    boundary_check_id: z.string(),
    allowed: z.boolean(),
    domain: z.string(),
    risk_level: z.enum(RISK_LEVELS),
    risk_score: z.number(),
    boundaries_checked: z.number().int(),
    violations: z.array(ViolationSchema),
    waived: z.array(z.string()),
    required_action: z.enum(REQUIRED_ACTIONS),
    recommended_capabilities: z.array(RequiredCapabilitySchema),
    rule_of_threes_analysis: z.object({
      good_for_human: judgment,
      good_for_humanity: judgment,
      good_for_svc: judgment,
      overall_assessment: z.enum(OVERALL_ASSESSMENTS),
    }),
  })
  .openapi('SafetyCheckResult');

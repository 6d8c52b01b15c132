import { NOTIFICATION_THRESHOLDS, RULE_PRIORITIES, URGENCIES } from '../../domain/rules/escalation-rules';
import { ConditionSchema } from './safety';
import { z } from './zod';

export const RuleActionSchema = z
  .discriminatedUnion('action', [
    z
      .object({
        action: z.literal('escalate_to_human'),
        target_capability: z.string().min(1).max(200),
        min_weight: z.number().min(0).max(1).default(0),
        urgency: z.enum(URGENCIES).default('medium'),
      })
      .strict(),
    z
      .object({
        action: z.literal('notify_supervisor'),
        notification_threshold: z.enum(NOTIFICATION_THRESHOLDS).openapi({
          description:
            'Tell the supervisor (escalation.supervisor_notified) once the routing’s escalation level reaches this. An escalation level (low, medium, ' +
            'high, urgent) or a risk level, read as the level a routing of that risk runs at: low, medium and high as themselves, critical as urgent',
        }),
      })
      .strict(),
  ])
  .openapi('RuleAction');

const ruleFields = {
  rule_name: z.string().min(1).max(200),
  description: z.string().max(2000),
  conditions: z.array(ConditionSchema).min(1).max(20).openapi({ description: 'All must hold for the rule to trigger' }),
  actions: z.array(RuleActionSchema).min(1).max(2),
  priority: z.enum(RULE_PRIORITIES).openapi({
    description:
      'Among triggered rules that escalate, the highest priority decides; rules of that priority naming different capabilities conflict',
  }),
  enabled: z.boolean(),
};

const allowConflicts = z.boolean().default(false).openapi({
  description:
    'Store an enabled rule even though it conflicts with, or is shadowed by, an enabled rule (otherwise 409 rule_conflict)',
});

export const CreateRuleSchema = z
  .object({
    ...ruleFields,
    description: ruleFields.description.default(''),
    priority: ruleFields.priority.default('medium'),
    enabled: ruleFields.enabled.default(true),
    allow_conflicts: allowConflicts,
  })
  .strict()
  .openapi('CreateEscalationRuleRequest');

export const PatchRuleSchema = z
  .object({
    rule_name: ruleFields.rule_name.optional(),
    description: ruleFields.description.optional(),
    conditions: ruleFields.conditions.optional(),
    actions: ruleFields.actions.optional(),
    priority: ruleFields.priority.optional(),
    enabled: ruleFields.enabled.optional(),
    allow_conflicts: allowConflicts,
  })
  .strict()
  .openapi('PatchEscalationRuleRequest');

export const DryRunSchema = z
  .object({
    conditions: ruleFields.conditions,
    actions: ruleFields.actions,
    priority: ruleFields.priority.default('medium'),
  })
  .strict()
  .openapi('EscalationRuleDryRunRequest');

const FindingSchema = z
  .object({
    kind: z.enum(['conflict', 'shadowed_by', 'shadows']),
    rule_id: z.string(),
    rule_name: z.string(),
    detail: z.string(),
  })
  .openapi('RuleFinding');

const TriggerRateBasisSchema = z.object({
  routings_replayed: z.number().int(),
  routings_triggered: z.number().int(),
  window_days: z.number().int(),
  computed_at: z.string(),
});

export const RuleSchema = z
  .object({
    rule_id: z.string(),
    rule_name: z.string(),
    description: z.string(),
    conditions: z.array(ConditionSchema),
    actions: z.array(RuleActionSchema),
    priority: z.enum(RULE_PRIORITIES),
    enabled: z.boolean(),
    status: z.enum(['active', 'disabled']),
    applies_to: z.array(z.string()).openapi({ description: 'The task types the rule can match; ["*"]: any' }),
    estimated_trigger_rate: z.string().openapi({
      description:
        'The share of the last 30 days’ routings its conditions match, replayed from the history; "n/a" without history',
      example: '12.5%',
    }),
    trigger_rate_basis: TriggerRateBasisSchema,
    version: z.number().int(),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .openapi('EscalationRule');

export const RuleWriteResponseSchema = RuleSchema.extend({
  findings: z.array(FindingSchema).openapi({ description: 'Conflicts and shadowing found against the enabled rules' }),
}).openapi('EscalationRuleWritten');

export const DryRunResponseSchema = z
  .object({
    applies_to: z.array(z.string()),
    estimated_trigger_rate: z.string(),
    trigger_rate_basis: TriggerRateBasisSchema,
    findings: z.array(FindingSchema),
  })
  .openapi('EscalationRuleDryRun');

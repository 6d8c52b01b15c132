import { autonomyPolicy } from './autonomy';
import { levelRank } from '../rules/escalation-rules';
import { LEVEL_FOR_RISK, type EscalationLevel, type RequiredCapability, type RoutingDecisionKind } from './decision';
import { ETHICAL_CONSTRAINTS_CHECKED } from '../safety/rule-of-threes';
import { capabilityAssessment } from './moment-capability';
import { contextAnalysis } from './moment-context';
import { riskEvaluation } from './moment-risk';
import type { RoutingInputs, DecisionStepId, DecisionMoment, RoutingVerdictV2 } from './moment-types';

/**
 * The routing decision in the spec's four moments, each recorded as a provenance step of its own:
 *
 *   capability_assessment  can the AI handle it: the Fourth Law, the caller's uncertainty threshold, the
 *                          agent's own assessment, and the capabilities a registered agent declared
 *   risk_evaluation        the risk score and level under the domain's thresholds, against the task's and
 *                          the agent's ceilings
 *   context_analysis       the domain's safety boundaries, the Rule of Threes, the escalation rules
 *   routing_decision       who handles it
 *
 * Each moment yields triggers. A trigger that escalates sends the task to a human; one that asks for
 * confirmation makes it hybrid; with none the agent acts alone. The reason is the first trigger in the
 * order below; the escalation level is the highest any trigger asks for.
 */
export type { RoutingInputs, DecisionStepId, DecisionMoment, RoutingVerdictV2 };

function mergeCapabilities(needs: RequiredCapability[]): RequiredCapability[] {
  const merged = new Map<string, RequiredCapability>();
  for (const need of needs) {
    const seen = merged.get(need.capability_id);
    // A need relaxes after a wait only while every source of it says so (a rule's own need never relaxes).
    const relaxes = need.relax_after_seconds !== undefined && (!seen || seen.relax_after_seconds !== undefined);
    const relax_after_seconds = Math.max(need.relax_after_seconds ?? 0, seen?.relax_after_seconds ?? 0);
    merged.set(need.capability_id, {
      capability_id: need.capability_id,
      min_weight: Math.max(need.min_weight, seen?.min_weight ?? 0),
      ...(relaxes ? { relax_after_seconds } : {}),
    });
  }
  return [...merged.values()];
}

/** Which trigger names the reason when several fire: the most severe first. */
const SEVERITY_ORDER = [
  'life_safety',
  'fourth_law',
  'uncertainty_threshold',
  'max_risk_level',
  'safety_boundaries',
  'rule_of_threes',
  'ai_cannot_handle',
  'agent_requested_escalation',
  'ai_capability_gap',
  'human_oversight_required',
  'human_required_mode',
  'rule_conflict',
  'escalation_rules',
  'agent_requires_human_confirmation',
  'safety_boundary_advisory',
  'high_risk_confirmation',
  'hybrid_mode',
];

const highest = (levels: EscalationLevel[]) =>
  levels.reduce<EscalationLevel>((top, level) => (levelRank(level) > levelRank(top) ? level : top), 'none');

/** The first three moments and the verdict; the workflow adds the fourth once it has assigned someone. */
export function decideRoutingMoments(inputs: RoutingInputs): { moments: DecisionMoment[]; verdict: RoutingVerdictV2 } {
  const { task } = inputs;
  const risked = riskEvaluation(task, inputs);
  const { risk } = risked;
  const policy = autonomyPolicy(inputs.autonomy_profile);
  const capability = capabilityAssessment(task, inputs.agent, LEVEL_FOR_RISK[risk.level], policy.confidence_threshold);
  const context = contextAnalysis(task, inputs, risk, policy);
  const triggers = [...risked.triggers, ...capability.triggers, ...context.triggers].sort(
    (a, b) => SEVERITY_ORDER.indexOf(a.rule_id) - SEVERITY_ORDER.indexOf(b.rule_id),
  );
  const escalating = triggers.filter((t) => t.triggered && t.effect === 'escalate');
  const confirming = triggers.filter((t) => t.triggered && t.effect === 'confirm');
  const settling = escalating[0] ?? confirming[0];
  const decision: RoutingDecisionKind =
    escalating.length > 0 ? 'escalate_to_human' : confirming.length > 0 ? 'hybrid_collaboration' : 'ai_autonomous';
  const escalation_level = settling
    ? highest((escalating.length > 0 ? escalating : confirming).map((t) => (t.level === 'none' ? 'low' : t.level)))
    : 'none';
  const { outcome } = context.rules;
  const ruleNeeds =
    outcome.kind === 'escalate' ? [{ capability_id: outcome.target_capability, min_weight: outcome.min_weight }] : [];
  const boundaries = triggers.filter((t) => t.boundary);
  const violated = context.boundaries.violations.length > 0;
  const verdict: RoutingVerdictV2 = {
    decision,
    reason: settling?.reason ?? 'within_ai_authority',
    rule_triggered:
      settling?.rule_id === 'escalation_rules' && outcome.kind === 'escalate'
        ? outcome.rule_ids[0]!
        : (settling?.reason ?? 'within_ai_authority'),
    escalation_level,
    risk,
    // Every rule in scope is recorded by the context analysis; the decision repeats only those that triggered.
    rules_evaluated: [
      ...triggers.map(({ rule_id, triggered, reason }) => ({ rule_id, triggered, reason })),
      ...context.rules.evaluations.filter((e) => e.triggered),
    ],
    safety_analysis: {
      risk_level: risk.level,
      safety_boundaries_checked: boundaries.length + context.boundaries.boundaries_checked,
      ethical_constraints_checked: ETHICAL_CONSTRAINTS_CHECKED,
      all_constraints_met: !violated && boundaries.every((t) => !t.triggered),
    },
    fourth_law_triggered: triggers.some((t) => t.rule_id === 'fourth_law' && t.triggered),
    required_capabilities:
      decision === 'ai_autonomous'
        ? task.required_capabilities
        : mergeCapabilities([...task.required_capabilities, ...ruleNeeds]),
    violations: context.boundaries.violations,
    rule_of_threes: context.threes,
    notifications: context.rules.notifications,
    rules_triggered: context.rules.evaluations.filter((e) => e.triggered).map((e) => e.rule_id),
    ...(outcome.kind === 'conflict'
      ? { rule_conflict: { rule_ids: outcome.rule_ids, target_capabilities: outcome.target_capabilities } }
      : {}),
  };
  return { moments: [capability.moment, risked.moment, context.moment], verdict };
}

import { agentCapabilityWeight, type AgentProfile } from '../agents/agents';
import { autonomyPolicy, type AutonomyPolicy } from './autonomy';
import type { AutonomyProfile } from '../common/organizations';
import type { RoutingFacts } from '../rules/conditions';
import { evaluateRules, levelRank, type EscalationRule, type RuleSetEvaluation } from '../rules/escalation-rules';
import { assessRisk, riskRank, type RiskAssessment } from './risk';
import {
  LEVEL_FOR_RISK,
  type EscalationLevel,
  type RequiredCapability,
  type RoutingDecisionKind,
  type RoutingTask,
  type RoutingVerdict,
  type RuleEvaluation,
} from './decision';
import { ETHICAL_CONSTRAINTS_CHECKED, ruleOfThrees, type RuleOfThreesAnalysis } from '../safety/rule-of-threes';
import type { RoutingAction } from './steps';
import {
  asksConfirmation,
  evaluateBoundaries,
  isBlocking,
  type BoundaryEvaluation,
  type DomainSafetyConfig,
  type Violation,
} from '../safety/boundaries';

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
export interface RoutingInputs {
  task: RoutingTask;
  /** The registered agent, or null when the task names one that is not registered. */
  agent: AgentProfile | null;
  domain: string;
  safety: DomainSafetyConfig;
  /** The enabled rules in the task's scope (task type and domain). */
  rules: EscalationRule[];
  rule_set: { version: number; enabled: number };
  /** The organization's autonomy profile; absent: balanced. */
  autonomy_profile?: AutonomyProfile | undefined;
}

export type DecisionStepId = 'capability_assessment' | 'risk_evaluation' | 'context_analysis' | 'routing_decision';

export interface DecisionMoment {
  step_id: DecisionStepId;
  action: RoutingAction;
  input_data: Record<string, unknown>;
  output_data: Record<string, unknown>;
  reasoning: string;
  rules_evaluated?: RuleEvaluation[];
}

export interface RoutingVerdictV2 extends Omit<RoutingVerdict, 'risk'> {
  risk: RiskAssessment;
  fourth_law_triggered: boolean;
  /** What the assigned human must hold: the task's capabilities and the deciding rule's target. */
  required_capabilities: RequiredCapability[];
  violations: Violation[];
  rule_of_threes: RuleOfThreesAnalysis;
  /** notify_supervisor actions of the triggered rules; each is due once the escalation level reaches its threshold. */
  notifications: RuleSetEvaluation['notifications'];
  /** Escalation rules that triggered. */
  rules_triggered: string[];
  rule_conflict?: { rule_ids: string[]; target_capabilities: string[] };
}

interface Trigger {
  rule_id: string;
  effect: 'escalate' | 'confirm';
  triggered: boolean;
  reason: string;
  level: EscalationLevel;
  /** A safety boundary: when it triggers, a constraint is not met. */
  boundary: boolean;
}

const trigger = (
  rule_id: string,
  effect: Trigger['effect'],
  boundary: boolean,
  level: EscalationLevel,
  when: boolean,
  reason: string,
  otherwise: string,
): Trigger => ({
  rule_id,
  effect,
  boundary,
  level,
  triggered: when,
  reason: when ? reason : otherwise,
});

function facts(task: RoutingTask, domain: string, risk: RiskAssessment): RoutingFacts {
  return {
    task_type: task.task_type,
    domain,
    risk_level: risk.level,
    ai_confidence: task.ai_confidence,
    context: task.context,
  };
}

/** What the task names as its action (context.action), else its type. */
export function actionOf(task: Pick<RoutingTask, 'task_type' | 'context'>): string {
  return typeof task.context.action === 'string' && task.context.action.length > 0
    ? task.context.action
    : task.task_type;
}

function capabilityAssessment(
  task: RoutingTask,
  agent: AgentProfile | null,
  riskLevel: EscalationLevel,
  confidenceThreshold: number,
) {
  const assessment = task.agent_assessment ?? {};
  // A registered agent that declares capabilities is held to them; others are judged by confidence alone.
  const gaps =
    agent && agent.capabilities.length > 0
      ? task.required_capabilities
          .filter((need) => agentCapabilityWeight(agent, need.capability_id) < need.min_weight)
          .map((need) => need.capability_id)
      : [];
  const threshold = task.escalation_conditions.uncertainty_threshold;
  const triggers = [
    trigger(
      'fourth_law',
      'escalate',
      true,
      riskLevel,
      task.ai_confidence < confidenceThreshold,
      'ai_confidence_below_threshold',
      'ai_confidence_at_or_above_threshold',
    ),
    trigger(
      'uncertainty_threshold',
      'escalate',
      true,
      riskLevel,
      threshold !== undefined && 1 - task.ai_confidence > threshold,
      'uncertainty_above_threshold',
      threshold === undefined ? 'no_uncertainty_threshold' : 'uncertainty_within_threshold',
    ),
    trigger(
      'ai_cannot_handle',
      'escalate',
      false,
      riskLevel,
      assessment.can_handle === false,
      'ai_cannot_handle',
      'ai_can_handle',
    ),
    trigger(
      'agent_requested_escalation',
      'escalate',
      false,
      riskLevel,
      assessment.escalation_recommended === true,
      'agent_requested_escalation',
      'no_escalation_requested',
    ),
    trigger(
      'ai_capability_gap',
      'escalate',
      false,
      riskLevel,
      gaps.length > 0,
      'ai_capability_gap',
      'ai_capabilities_sufficient',
    ),
  ];
  const moment: DecisionMoment = {
    step_id: 'capability_assessment',
    action: 'capability_assessed',
    input_data: {
      ai_agent_id: task.ai_agent_id,
      agent_registered: agent !== null,
      ai_confidence: task.ai_confidence,
      required_capabilities: task.required_capabilities,
      agent_assessment: assessment,
    },
    output_data: {
      ai_can_handle: !triggers.some((t) => t.triggered),
      capability_gaps: gaps,
      triggers: triggers.filter((t) => t.triggered).map((t) => t.reason),
    },
    reasoning: triggers.some((t) => t.triggered)
      ? `The AI cannot take this alone: ${triggers
          .filter((t) => t.triggered)
          .map((t) => t.reason)
          .join(', ')}`
      : `Confidence ${task.ai_confidence} meets the ${confidenceThreshold} threshold and no capability is missing`,
  };
  return { triggers, moment };
}

function riskEvaluation(task: RoutingTask, inputs: RoutingInputs) {
  const lifeSafety = task.escalation_conditions.life_safety_flag === true;
  const risk = assessRisk({ context: task.context, lifeSafetyFlag: lifeSafety }, inputs.safety.risk_thresholds);
  const byRisk = LEVEL_FOR_RISK[risk.level];
  const max = task.safety_requirements.max_risk_level;
  const triggers = [
    trigger('life_safety', 'escalate', true, 'urgent', lifeSafety, 'life_safety_flag', 'no_life_safety_flag'),
    trigger(
      'max_risk_level',
      'escalate',
      true,
      byRisk,
      max !== undefined && riskRank(risk.level) > riskRank(max),
      'risk_exceeds_max_risk_level',
      max === undefined ? 'no_max_risk_level' : 'risk_within_max_risk_level',
    ),
  ];
  const moment: DecisionMoment = {
    step_id: 'risk_evaluation',
    action: 'risk_evaluated',
    input_data: {
      domain: inputs.domain,
      risk_thresholds: inputs.safety.risk_thresholds,
      max_risk_level: max ?? null,
      life_safety_flag: lifeSafety,
    },
    output_data: {
      score: risk.score,
      level: risk.level,
      factors: risk.factors,
      triggers: triggers.filter((t) => t.triggered).map((t) => t.reason),
    },
    reasoning: `Risk ${risk.level} (score ${risk.score}) under ${inputs.domain} thresholds${risk.factors.length > 0 ? ` from ${risk.factors.join(', ')}` : ''}`,
  };
  return { risk, triggers, moment };
}

function contextAnalysis(task: RoutingTask, inputs: RoutingInputs, risk: RiskAssessment, policy: AutonomyPolicy) {
  const byRisk = LEVEL_FOR_RISK[risk.level];
  const action = actionOf(task);
  const routingFacts = facts(task, inputs.domain, risk);
  // The Fourth Law is judged in the capability assessment, so the boundaries here see no confidence.
  const boundaries: BoundaryEvaluation = evaluateBoundaries({
    action,
    context: task.context,
    actor: { type: 'ai_agent', agent_id: task.ai_agent_id },
    agent: inputs.agent,
    config: inputs.safety,
    facts: routingFacts,
    risk,
  });
  const threes = ruleOfThrees({ context: task.context, risk_level: risk.level, violations: boundaries.violations });
  const rules = evaluateRules(inputs.rules, routingFacts);
  const blocking = boundaries.violations.filter(isBlocking);
  const confirming = boundaries.violations.filter(asksConfirmation);
  const { outcome } = rules;
  const ruleLevel: EscalationLevel = outcome.kind === 'none' ? 'none' : outcome.urgency;
  const mode = task.routing_mode ?? 'ai_first';
  const triggers = [
    trigger(
      'safety_boundaries',
      'escalate',
      true,
      byRisk,
      blocking.length > 0,
      blocking[0]?.reason ?? '',
      'within_safety_boundaries',
    ),
    trigger(
      'rule_of_threes',
      'escalate',
      true,
      byRisk,
      threes.overall_assessment === 'not_aligned',
      'rule_of_threes_violation',
      `rule_of_threes_${threes.overall_assessment}`,
    ),
    trigger(
      'human_oversight_required',
      'escalate',
      false,
      byRisk,
      task.safety_requirements.human_oversight_required === true,
      'human_oversight_required',
      'human_oversight_not_required',
    ),
    trigger(
      'human_required_mode',
      'escalate',
      false,
      byRisk,
      mode === 'human_required',
      'human_required_mode',
      `routing_mode_${mode}`,
    ),
    trigger(
      'escalation_rules',
      'escalate',
      false,
      ruleLevel,
      outcome.kind === 'escalate',
      'escalation_rule_triggered',
      'no_escalation_rule_decided',
    ),
    trigger(
      'rule_conflict',
      'escalate',
      false,
      ruleLevel,
      outcome.kind === 'conflict',
      'rule_conflict',
      'no_rule_conflict',
    ),
    trigger(
      'agent_requires_human_confirmation',
      'confirm',
      false,
      byRisk,
      boundaries.confirmation_required,
      'agent_requires_human_confirmation',
      'agent_may_act_alone',
    ),
    trigger(
      'safety_boundary_advisory',
      'confirm',
      false,
      byRisk,
      confirming.length > 0,
      'safety_boundary_advisory',
      'no_advisory_finding',
    ),
    trigger(
      'high_risk_confirmation',
      'confirm',
      false,
      byRisk,
      riskRank(risk.level) >= riskRank(policy.hybrid_from_risk),
      riskRank(risk.level) >= riskRank('high')
        ? 'high_risk_requires_human_confirmation'
        : 'autonomy_profile_requires_human_confirmation',
      `risk_below_${policy.hybrid_from_risk}`,
    ),
    trigger('hybrid_mode', 'confirm', false, byRisk, mode === 'hybrid', 'hybrid_mode', `routing_mode_${mode}`),
  ];
  const moment: DecisionMoment = {
    step_id: 'context_analysis',
    action: 'context_analyzed',
    input_data: {
      domain: inputs.domain,
      action,
      routing_mode: mode,
      rule_set: {
        version: inputs.rule_set.version,
        enabled_rules: inputs.rule_set.enabled,
        rules_in_scope: inputs.rules.length,
      },
    },
    output_data: {
      violations: boundaries.violations,
      boundaries_checked: boundaries.boundaries_checked,
      rule_of_threes: threes,
      rule_outcome: outcome,
      triggers: triggers.filter((t) => t.triggered).map((t) => t.reason),
    },
    reasoning:
      `${boundaries.violations.length} of ${boundaries.boundaries_checked} boundaries crossed; Rule of Threes ${threes.overall_assessment}; ` +
      `${rules.evaluations.filter((e) => e.triggered).length} of ${inputs.rules.length} escalation rules in scope triggered (rule set v${inputs.rule_set.version})`,
    rules_evaluated: rules.evaluations,
  };
  return { triggers, moment, boundaries, threes, rules };
}

function mergeCapabilities(needs: RequiredCapability[]): RequiredCapability[] {
  const merged = new Map<string, number>();
  for (const need of needs)
    merged.set(need.capability_id, Math.max(need.min_weight, merged.get(need.capability_id) ?? 0));
  return [...merged].map(([capability_id, min_weight]) => ({ capability_id, min_weight }));
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

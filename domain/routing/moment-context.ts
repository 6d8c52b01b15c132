/** The third decision moment, context_analysis: the domain's safety boundaries, the Rule of Threes, the escalation rules. */
import type { AutonomyPolicy } from './autonomy';
import { actionOf, LEVEL_FOR_RISK, type EscalationLevel, type RoutingMode, type RoutingTask } from './decision';
import type { DecisionMoment, RoutingInputs } from './moment-types';
import { firedReasons, routingFactsOf, trigger, type Trigger } from './moment-triggers';
import { riskRank, type RiskAssessment } from './risk';
import { evaluateRules, type RuleSetEvaluation } from '../rules/escalation-rules';
import { ruleOfThrees, type RuleOfThreesAnalysis } from '../safety/rule-of-threes';
import { asksConfirmation, evaluateBoundaries, isBlocking, type BoundaryEvaluation } from '../safety/boundaries';

/** What the context analysis weighs. */
interface ContextFindings {
  action: string;
  mode: RoutingMode;
  boundaries: BoundaryEvaluation;
  threes: RuleOfThreesAnalysis;
  rules: RuleSetEvaluation;
}

function contextFindings(task: RoutingTask, inputs: RoutingInputs, risk: RiskAssessment): ContextFindings {
  const action = actionOf(task);
  const facts = routingFactsOf(task, inputs.domain, risk);
  // The Fourth Law is judged in the capability assessment, so the boundaries here see no confidence.
  const boundaries = evaluateBoundaries({
    action,
    context: task.context,
    actor: { type: 'ai_agent', agent_id: task.ai_agent_id },
    agent: inputs.agent,
    config: inputs.safety,
    facts,
    risk,
  });
  const threes = ruleOfThrees({ context: task.context, risk_level: risk.level, violations: boundaries.violations });
  return {
    action,
    mode: task.routing_mode ?? 'ai_first',
    boundaries,
    threes,
    rules: evaluateRules(inputs.rules, facts),
  };
}

/** Boundaries crossed and the Rule of Threes: they send the task to a human. */
function safetyTriggers(findings: ContextFindings, byRisk: EscalationLevel): Trigger[] {
  const { boundaries, threes } = findings;
  const blocking = boundaries.violations.filter(isBlocking);
  return [
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
  ];
}

/** The task's own demands for a human and the escalation rules: they send the task to a human too. */
function oversightTriggers(task: RoutingTask, findings: ContextFindings, byRisk: EscalationLevel): Trigger[] {
  const { mode } = findings;
  const { outcome } = findings.rules;
  const ruleLevel: EscalationLevel = outcome.kind === 'none' ? 'none' : outcome.urgency;
  return [
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
  ];
}

/** The findings that ask a human to confirm what the agent does (hybrid). */
function confirmingTriggers(
  findings: ContextFindings,
  risk: RiskAssessment,
  policy: AutonomyPolicy,
  byRisk: EscalationLevel,
): Trigger[] {
  const { boundaries, mode } = findings;
  const confirming = boundaries.violations.filter(asksConfirmation);
  return [
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
}

function contextMoment(inputs: RoutingInputs, findings: ContextFindings, triggers: readonly Trigger[]): DecisionMoment {
  const { boundaries, threes, rules } = findings;
  return {
    step_id: 'context_analysis',
    action: 'context_analyzed',
    input_data: {
      domain: inputs.domain,
      action: findings.action,
      routing_mode: findings.mode,
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
      rule_outcome: rules.outcome,
      triggers: firedReasons(triggers),
    },
    reasoning:
      `${boundaries.violations.length} of ${boundaries.boundaries_checked} boundaries crossed; Rule of Threes ${threes.overall_assessment}; ` +
      `${rules.evaluations.filter((e) => e.triggered).length} of ${inputs.rules.length} escalation rules in scope triggered (rule set v${inputs.rule_set.version})`,
    rules_evaluated: rules.evaluations,
  };
}

export function contextAnalysis(
  task: RoutingTask,
  inputs: RoutingInputs,
  risk: RiskAssessment,
  policy: AutonomyPolicy,
): ContextFindings & { triggers: Trigger[]; moment: DecisionMoment } {
  const byRisk = LEVEL_FOR_RISK[risk.level];
  const findings = contextFindings(task, inputs, risk);
  const triggers = [
    ...safetyTriggers(findings, byRisk),
    ...oversightTriggers(task, findings, byRisk),
    ...confirmingTriggers(findings, risk, policy, byRisk),
  ];
  return { ...findings, triggers, moment: contextMoment(inputs, findings, triggers) };
}

import { evaluateRisk, riskRank, type RiskLevel } from './risk';

/** The Fourth Law: below this confidence a human takes over. */
export const FOURTH_LAW_THRESHOLD = 0.7;

export const ROUTING_DECISIONS = ['ai_autonomous', 'escalate_to_human', 'hybrid_collaboration'] as const;
export type RoutingDecisionKind = (typeof ROUTING_DECISIONS)[number];

export const ESCALATION_LEVELS = ['none', 'low', 'medium', 'high', 'urgent'] as const;
export type EscalationLevel = (typeof ESCALATION_LEVELS)[number];

export interface RequiredCapability {
  capability_id: string;
  min_weight: number;
}

/**
 * ai_first        the AI acts alone unless a rule or boundary says otherwise (POST /routing's default)
 * human_required  straight to a human
 * hybrid          the AI works and a human confirms, at least
 * escalation      as ai_first, and an autonomous routing stays open so the agent or a human can still
 *                 escalate it (the agent operations' default)
 */
export const ROUTING_MODES = ['ai_first', 'human_required', 'hybrid', 'escalation'] as const;
export type RoutingMode = (typeof ROUTING_MODES)[number];

/** What the agent says about its own ability (POST /route's ai_assessment and escalation_recommendation). */
export interface AgentAssessment {
  can_handle?: boolean | undefined;
  escalation_recommended?: boolean | undefined;
  uncertainty_reason?: string | undefined;
  /** Context the agent hands to the human who may take over. */
  human_context?: string | undefined;
}

export interface RoutingTask {
  task_type: string;
  context: Record<string, unknown>;
  ai_agent_id: string;
  ai_confidence: number;
  ai_recommendation?: string | undefined;
  required_capabilities: RequiredCapability[];
  safety_requirements: { max_risk_level?: RiskLevel | undefined; human_oversight_required?: boolean | undefined };
  escalation_conditions: { uncertainty_threshold?: number | undefined; life_safety_flag?: boolean | undefined };
  routing_mode?: RoutingMode | undefined;
  agent_assessment?: AgentAssessment | undefined;
}

export interface RuleEvaluation {
  rule_id: string;
  triggered: boolean;
  reason: string;
}

export interface RoutingVerdict {
  decision: RoutingDecisionKind;
  /** The reason of the rule that settled the decision. */
  reason: string;
  /** Same as reason; the spec names it rule_triggered in provenance. */
  rule_triggered: string;
  escalation_level: EscalationLevel;
  risk: { level: RiskLevel; factors: string[] };
  rules_evaluated: RuleEvaluation[];
  safety_analysis: {
    risk_level: RiskLevel;
    safety_boundaries_checked: number;
    ethical_constraints_checked: number;
    all_constraints_met: boolean;
  };
}

/** The Rule of Threes (good for the human, for humanity, for the service) is the ethical check. */
const ETHICAL_CONSTRAINTS = 3;

export const LEVEL_FOR_RISK: Record<RiskLevel, EscalationLevel> = {
  low: 'low',
  medium: 'medium',
  high: 'high',
  critical: 'urgent',
};

interface Rule {
  id: string;
  /** What happens when the rule triggers; the first triggered rule in this order settles the decision. */
  decision: Exclude<RoutingDecisionKind, 'ai_autonomous'>;
  /** Whether the rule is a safety boundary whose triggering means a constraint is not met. */
  boundary: boolean;
  level: (risk: RiskLevel) => EscalationLevel;
  check: (task: RoutingTask, risk: RiskLevel) => { triggered: boolean; reason: string };
}

/**
 * Ordered by severity: the first rule that triggers decides and names the reason, but every rule is
 * evaluated so that provenance shows all that applied.
 */
const RULES: readonly Rule[] = [
  {
    id: 'life_safety',
    decision: 'escalate_to_human',
    boundary: true,
    level: () => 'urgent',
    check: (task) =>
      task.escalation_conditions.life_safety_flag === true
        ? { triggered: true, reason: 'life_safety_flag' }
        : { triggered: false, reason: 'no_life_safety_flag' },
  },
  {
    id: 'fourth_law',
    decision: 'escalate_to_human',
    boundary: true,
    level: (risk) => LEVEL_FOR_RISK[risk],
    check: (task) =>
      task.ai_confidence < FOURTH_LAW_THRESHOLD
        ? { triggered: true, reason: 'ai_confidence_below_threshold' }
        : { triggered: false, reason: 'ai_confidence_at_or_above_threshold' },
  },
  {
    // Uncertainty is 1 − confidence; the caller's threshold is the most uncertainty it tolerates.
    id: 'uncertainty_threshold',
    decision: 'escalate_to_human',
    boundary: true,
    level: (risk) => LEVEL_FOR_RISK[risk],
    check: (task) => {
      const threshold = task.escalation_conditions.uncertainty_threshold;
      if (threshold === undefined) return { triggered: false, reason: 'no_uncertainty_threshold' };
      return 1 - task.ai_confidence > threshold
        ? { triggered: true, reason: 'uncertainty_above_threshold' }
        : { triggered: false, reason: 'uncertainty_within_threshold' };
    },
  },
  {
    id: 'max_risk_level',
    decision: 'escalate_to_human',
    boundary: true,
    level: (risk) => LEVEL_FOR_RISK[risk],
    check: (task, risk) => {
      const max = task.safety_requirements.max_risk_level;
      if (max === undefined) return { triggered: false, reason: 'no_max_risk_level' };
      return riskRank(risk) > riskRank(max)
        ? { triggered: true, reason: 'risk_exceeds_max_risk_level' }
        : { triggered: false, reason: 'risk_within_max_risk_level' };
    },
  },
  {
    id: 'human_oversight_required',
    decision: 'escalate_to_human',
    boundary: false,
    level: (risk) => LEVEL_FOR_RISK[risk],
    check: (task) =>
      task.safety_requirements.human_oversight_required === true
        ? { triggered: true, reason: 'human_oversight_required' }
        : { triggered: false, reason: 'human_oversight_not_required' },
  },
  {
    // The AI may act, but at high risk a human confirms before the action stands.
    id: 'high_risk_confirmation',
    decision: 'hybrid_collaboration',
    boundary: false,
    level: (risk) => LEVEL_FOR_RISK[risk],
    check: (_task, risk) =>
      riskRank(risk) >= riskRank('high')
        ? { triggered: true, reason: 'high_risk_requires_human_confirmation' }
        : { triggered: false, reason: 'risk_below_high' },
  },
];

export function decideRouting(task: RoutingTask): RoutingVerdict {
  const risk = evaluateRisk({ context: task.context, lifeSafetyFlag: task.escalation_conditions.life_safety_flag === true });
  const outcomes = RULES.map((rule) => ({ rule, ...rule.check(task, risk.level) }));
  const rules_evaluated = outcomes.map(({ rule, triggered, reason }) => ({ rule_id: rule.id, triggered, reason }));
  const boundaries = outcomes.filter(({ rule }) => rule.boundary);
  const safety_analysis = {
    risk_level: risk.level,
    safety_boundaries_checked: boundaries.length,
    ethical_constraints_checked: ETHICAL_CONSTRAINTS,
    all_constraints_met: boundaries.every(({ triggered }) => !triggered),
  };

  const settling = outcomes.find(({ triggered }) => triggered);
  if (!settling) {
    return {
      decision: 'ai_autonomous',
      reason: 'within_ai_authority',
      rule_triggered: 'within_ai_authority',
      escalation_level: 'none',
      risk,
      rules_evaluated,
      safety_analysis,
    };
  }
  return {
    decision: settling.rule.decision,
    reason: settling.reason,
    rule_triggered: settling.reason,
    escalation_level: settling.rule.level(risk.level),
    risk,
    rules_evaluated,
    safety_analysis,
  };
}

export function needsHuman(decision: RoutingDecisionKind): boolean {
  return decision !== 'ai_autonomous';
}

/** One step up the escalation ladder; urgent is the top. */
export function raiseEscalationLevel(level: EscalationLevel): EscalationLevel {
  const index = ESCALATION_LEVELS.indexOf(level);
  return ESCALATION_LEVELS[Math.min(index + 1, ESCALATION_LEVELS.length - 1)] ?? 'urgent';
}

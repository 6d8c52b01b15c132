import type { RiskLevel } from './risk';

/** The Fourth Law: below this confidence a human takes over. */
export const FOURTH_LAW_THRESHOLD = 0.7;

export const ROUTING_DECISIONS = ['ai_autonomous', 'escalate_to_human', 'hybrid_collaboration'] as const;
export type RoutingDecisionKind = (typeof ROUTING_DECISIONS)[number];

export const ESCALATION_LEVELS = ['none', 'low', 'medium', 'high', 'urgent'] as const;
export type EscalationLevel = (typeof ESCALATION_LEVELS)[number];

export interface RequiredCapability {
  capability_id: string;
  min_weight: number;
  /**
   * Once the routing has waited this long in the queue for a reviewer, the capability is no longer required
   * (Omni-Channel's dropped "additional" skills; a reviewer holding it is still preferred by weight).
   */
  relax_after_seconds?: number | undefined;
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

export const LEVEL_FOR_RISK: Record<RiskLevel, EscalationLevel> = {
  low: 'low',
  medium: 'medium',
  high: 'high',
  critical: 'urgent',
};

export function needsHuman(decision: RoutingDecisionKind): boolean {
  return decision !== 'ai_autonomous';
}

/** One step up the escalation ladder; urgent is the top. */
export function raiseEscalationLevel(level: EscalationLevel): EscalationLevel {
  const index = ESCALATION_LEVELS.indexOf(level);
  return ESCALATION_LEVELS[Math.min(index + 1, ESCALATION_LEVELS.length - 1)] ?? 'urgent';
}

/** What the task names as its action (context.action), else its type. */
export function actionOf(task: Pick<RoutingTask, 'task_type' | 'context'>): string {
  return typeof task.context.action === 'string' && task.context.action.length > 0
    ? task.context.action
    : task.task_type;
}

import type { AgentProfile } from '../agents/agents';
import type { AutonomyProfile } from '../common/organizations';
import type { EscalationRule, RuleSetEvaluation } from '../rules/escalation-rules';
import type { RuleOfThreesAnalysis } from '../safety/rule-of-threes';
import type { DomainSafetyConfig, Violation } from '../safety/boundaries';
import type { RiskAssessment } from './risk';
import type { RequiredCapability, RoutingTask, RoutingVerdict, RuleEvaluation } from './decision';

/** The shapes the decision's moments and the routing's steps share (kept apart so neither imports the other). */
/** The action of each record a routing leaves: its decision moments, then each step after. */
export type RoutingAction =
  | 'capability_assessed'
  | 'risk_evaluated'
  | 'context_analyzed'
  | 'routing_decided'
  | 'escalation_refused'
  | 'escalated_by_request'
  | 'reassigned_by_request'
  | 'queued_by_request'
  | 'queue_escalated'
  | 'assigned_by_admin'
  | 'assigned_from_queue'
  | 'escalated'
  | 'routing_expired'
  | 'routing_resolved'
  | 'confidence_reported';

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

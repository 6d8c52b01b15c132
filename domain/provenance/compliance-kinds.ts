/**
 * What the compliance tally reads in a provenance record, decided by the record's action. Every action the
 * step builders write is given a kind here, so a new action does not compile until someone says how the
 * tally counts it. An action nobody here writes (an agent's own logged action, whatever it is named or
 * holds) is a plain record: it gets only the checks every record gets.
 */
import type { ApprovalAction } from '../approvals/steps';
import type { DagAction } from '../dags/steps';
import type { ExecutionAction } from '../executions/steps';
import { ROUTING_DECISIONS, type RoutingDecisionKind } from '../routing/decision';
import type { RoutingAction, RoutingDecidedOutput } from '../routing/steps';
import type { Violation } from '../safety/boundaries';
import type { RuleOfThreesAnalysis } from '../safety/rule-of-threes';

/**
 * Actions that services write themselves and the tally reads: services/safety/check.ts,
 * services/routing/agent-operations.ts, services/routing/feedback.ts and services/rules/escalation-rules.ts.
 */
type ServiceAction =
  | 'safety_checked'
  | 'autonomous_action_refused'
  | 'outcome_feedback'
  | `escalation_rule_${'created' | 'changed' | 'enabled' | 'disabled' | 'deleted'}`;

export type RecordedAction = RoutingAction | ApprovalAction | ExecutionAction | DagAction | ServiceAction;

/**
 * decision: a routing's decision (the routing_decided output); escalation: one more escalation triggered;
 * safety_check: a safety check's verdict; boundary_findings: the boundaries a step found crossed;
 * chain_exhausted: an escalation that ran out of reviewers; plain: nothing beyond the checks of every record.
 */
export type RecordKind = 'decision' | 'escalation' | 'safety_check' | 'boundary_findings' | 'chain_exhausted' | 'plain';

const KIND_OF_ACTION = {
  routing_decided: 'decision',
  // Feedback repeats its routing's decision in its output, and is tallied as a decision as well.
  outcome_feedback: 'decision',
  escalated: 'escalation',
  escalated_by_request: 'escalation',
  escalation_refused: 'escalation',
  queue_escalated: 'escalation',
  // Changes to escalation rules are tallied among the escalations triggered, as the report has always counted them.
  escalation_rule_created: 'escalation',
  escalation_rule_changed: 'escalation',
  escalation_rule_enabled: 'escalation',
  escalation_rule_disabled: 'escalation',
  escalation_rule_deleted: 'escalation',
  safety_checked: 'safety_check',
  context_analyzed: 'boundary_findings',
  autonomous_action_refused: 'boundary_findings',
  routing_expired: 'chain_exhausted',
  capability_assessed: 'plain',
  risk_evaluated: 'plain',
  reassigned_by_request: 'plain',
  queued_by_request: 'plain',
  assigned_by_admin: 'plain',
  assigned_from_queue: 'plain',
  routing_resolved: 'plain',
  confidence_reported: 'plain',
  approval_requested: 'plain',
  approval_approved: 'plain',
  approval_rejected: 'plain',
  approval_cancelled: 'plain',
  approval_expired: 'plain',
  approval_vote_approved: 'plain',
  approval_vote_rejected: 'plain',
  approval_escalated: 'plain',
  approval_held: 'plain',
  execution_queued: 'plain',
  execution_started: 'plain',
  execution_completed: 'plain',
  execution_failed: 'plain',
  execution_cancelled: 'plain',
  callback_delivered: 'plain',
  callback_failed: 'plain',
  workflow_started: 'plain',
  workflow_completed: 'plain',
  workflow_failed: 'plain',
  node_completed: 'plain',
  node_failed: 'plain',
} as const satisfies Record<RecordedAction, RecordKind>;

export function recordKindOf(action: string): RecordKind {
  return Object.hasOwn(KIND_OF_ACTION, action) ? KIND_OF_ACTION[action as RecordedAction] : 'plain';
}

/** What a record adds to a tally beyond the checks every record gets. */
export interface RecordReading {
  decision?: RoutingDecisionKind;
  risk_level?: string;
  escalation?: boolean;
  safety_violation?: boolean;
  rule_of_threes?: Partial<RuleOfThreesAnalysis>;
  chain_exhausted?: boolean;
}

/** The outputs the tally reads, as their writers shape them; a field may be missing from what was stored. */
type DecisionOutput = Partial<Pick<RoutingDecidedOutput, 'risk' | 'safety_analysis'>> & {
  decision?: RoutingDecisionKind | null;
};
type SafetyCheckOutput = Partial<{
  allowed: boolean;
  violations: readonly Violation[];
  rule_of_threes_analysis: RuleOfThreesAnalysis;
}>;
type BoundaryFindingsOutput = Partial<{ violations: readonly Violation[] }>;

const crossed = (violations: readonly Violation[] | undefined) => (violations ?? []).length > 0;

function readDecision(output: DecisionOutput): RecordReading {
  // Only the three decisions are counted: an agent may log a record of this name holding anything.
  const decision = ROUTING_DECISIONS.find((kind) => kind === output.decision);
  const reading: RecordReading = {
    ...(decision ? { decision } : {}),
    safety_violation: output.safety_analysis?.all_constraints_met === false,
  };
  const risk_level = output.risk?.level ?? output.safety_analysis?.risk_level;
  return risk_level === undefined ? reading : { ...reading, risk_level };
}

function readSafetyCheck(check: SafetyCheckOutput): RecordReading {
  return {
    safety_violation: check.allowed === false || crossed(check.violations),
    ...(check.rule_of_threes_analysis ? { rule_of_threes: check.rule_of_threes_analysis } : {}),
  };
}

/** Each kind's reader, given the record's output as its writer shapes it. */
const READERS: { [K in RecordKind]: (output: Record<string, unknown>) => RecordReading } = {
  decision: readDecision,
  escalation: () => ({ escalation: true }),
  safety_check: readSafetyCheck,
  boundary_findings: (output: BoundaryFindingsOutput) => ({ safety_violation: crossed(output.violations) }),
  chain_exhausted: () => ({ chain_exhausted: true }),
  plain: () => ({}),
};

/** What the tally reads in a record of this action and output. */
export function readRecord(action: string, output: Record<string, unknown>): RecordReading {
  return READERS[recordKindOf(action)](output);
}

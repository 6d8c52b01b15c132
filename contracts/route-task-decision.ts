import { agentDid, type LedgerAnchor } from '../domain/provenance/records';
import { assignReviewer, humanAssignee, type LoadedReviewer } from '../domain/routing/reviewer-assignment';
import { needsHuman, type RoutingMode } from '../domain/routing/decision';
import { queuedFor, supervisorNotifications } from '../domain/routing/escalation';
import type { RoutingVerdictV2, DecisionMoment } from '../domain/routing/moments';
import { coveringFor, decisionRecords, type RoutingStepRecord } from '../domain/routing/steps';
import type {
  AssignedTo,
  CarriedVerdict,
  Decided,
  HumanEscalationLevel,
  RouteTaskInput,
  RoutingDecisionResult,
  RoutingState,
} from './route-task';

export type { Decided, RecordedDecision } from './route-task';

/**
 * A routing's decision as a value: who takes the task, the four moments' records, and the state they
 * leave. The API's routing service makes it (and records it in one transaction before the workflow starts);
 * the routing workflow's own decide step makes the same one for routings started before the decision
 * moved to the request path.
 */

/** Stands in for a step's anchor until the ledger has assigned it. */
export const PENDING_ANCHOR: LedgerAnchor = { transaction_id: '', block_number: 0 };

export interface RoutingDecision {
  decided: Decided;
  /** The four moments (the last one is the decision), with their events, in order. */
  steps: RoutingStepRecord[];
  /** The state the decision leaves; its decision_result carries PENDING_ANCHOR until the ledger gives one. */
  changes: Partial<RoutingState> &
    Pick<RoutingState, 'status' | 'escalation_level'> & { decision_result: RoutingDecisionResult };
}

const carried = ({
  decision,
  escalation_level,
  required_capabilities,
  notifications,
  risk,
}: RoutingVerdictV2): CarriedVerdict => ({
  decision,
  escalation_level,
  required_capabilities,
  notifications,
  risk: { level: risk.level },
});

/**
 * The decision from the verdict of the four moments and the reviewers who could take it (those holding what
 * the verdict requires): a human decision assigns the least-loaded qualified one, or, with none, queues the
 * routing, never drops it.
 */
export function routingDecision(args: {
  input: Pick<RouteTaskInput, 'routing_id' | 'request_id' | 'task' | 'escalation_timeouts_seconds'>;
  domain: string;
  moments: DecisionMoment[];
  verdict: RoutingVerdictV2;
  candidates: readonly LoadedReviewer[];
  decided_at: string;
}): RoutingDecision {
  const { input, verdict, moments, decided_at } = args;
  const { task, routing_id } = input;
  const human = needsHuman(verdict.decision);
  const assignment = human ? assignReviewer(args.candidates, verdict.required_capabilities) : undefined;
  const assigned_to: AssignedTo | undefined = !human
    ? { type: 'ai_agent', did: agentDid(task.ai_agent_id), agent_id: task.ai_agent_id, capabilities_matched: [] }
    : assignment && humanAssignee(assignment);
  const estimated_response_time = human
    ? input.escalation_timeouts_seconds[verdict.escalation_level as HumanEscalationLevel]
    : 0;
  const told = human
    ? supervisorNotifications(routing_id, verdict.notifications, verdict.escalation_level, [])
    : { events: [], notified: [] };
  const steps = decisionRecords({
    routing_id,
    task_id: input.request_id,
    verdict,
    task,
    moments,
    human,
    assigned_to,
    notifications: told.events,
  });
  const decided: Decided = { verdict: carried(verdict), human, assignment, decided_at, notified: told.notified };
  const made = { routing_id, verdict, human, assigned_to, estimated_response_time, decided_at };
  return { decided, steps, changes: decisionChanges(made, args.domain, task.routing_mode ?? 'ai_first') };
}

/** What the decision settled, for the state and the result it leaves. */
interface Made {
  routing_id: string;
  verdict: RoutingVerdictV2;
  human: boolean;
  /** The agent, the reviewer assigned, or nobody (a human is needed and none qualified: queued). */
  assigned_to: AssignedTo | undefined;
  estimated_response_time: number;
  decided_at: string;
}

/** The state the decision leaves: queued with nobody to take it, else assigned (to a human: the escalation chain's first level). */
function decisionChanges(made: Made, domain: string, routing_mode: RoutingMode): RoutingDecision['changes'] {
  const { verdict, human, assigned_to, decided_at } = made;
  const common = {
    decision: verdict.decision,
    risk_level: verdict.risk.level,
    domain,
    routing_mode,
    fourth_law_triggered: verdict.fourth_law_triggered,
    safety_violation_count: verdict.violations.length,
    rules_triggered: verdict.rules_triggered,
    reason: verdict.reason,
    escalation_level: verdict.escalation_level,
    estimated_response_time: made.estimated_response_time,
  };
  const result = decisionResult(made);
  if (!assigned_to) {
    return {
      ...common,
      status: 'queued',
      decision_result: { ...result, queued: queuedFor(verdict.required_capabilities) },
    };
  }
  return {
    ...common,
    status: human ? 'in_progress' : 'completed',
    assigned_to,
    assigned_at: decided_at,
    escalation_chain: human
      ? [
          {
            level: 1,
            escalation_level: verdict.escalation_level,
            did: assigned_to.did,
            ...coveringFor(assigned_to),
            timestamp: decided_at,
          },
        ]
      : [],
    decision_result: result,
    ...(human ? { escalated_at: decided_at } : {}),
  };
}

/** The decision as its caller is answered, with PENDING_ANCHOR until the ledger gives its anchor. */
function decisionResult(made: Made): RoutingDecisionResult {
  const { routing_id, verdict, estimated_response_time } = made;
  return {
    routing_id,
    decision: verdict.decision,
    reason: verdict.reason,
    assigned_to: made.assigned_to ?? null,
    escalation_level: verdict.escalation_level,
    estimated_response_time,
    safety_analysis: verdict.safety_analysis,
    provenance: {
      decision_made_by: 'orch_core',
      timestamp: made.decided_at,
      rule_triggered: verdict.rule_triggered,
      ledger_anchor: PENDING_ANCHOR,
    },
    fourth_law_triggered: verdict.fourth_law_triggered,
    rules_triggered: verdict.rules_triggered,
    ...(verdict.rule_conflict ? { rule_conflict: verdict.rule_conflict } : {}),
  };
}

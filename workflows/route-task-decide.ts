import type { AssignedTo, HumanEscalationLevel, RoutingDecisionResult } from '../contracts/route-task';
import { agentDid } from '../domain/provenance';
import { assignReviewer, type Assignment } from '../domain/reviewer-assignment';
import { needsHuman } from '../domain/routing-decision';
import { candidatesCover, queuedFor, supervisorNotifications } from '../domain/routing-escalation';
import { decideRoutingMoments, type RoutingVerdictV2 } from '../domain/routing-moments';
import { decisionRecords } from '../domain/routing-steps';
import { PENDING_ANCHOR, routingActivities, type RoutingRun } from './route-task-run';

/** What the decision leaves for the rest of the routing. */
export interface Decided {
  verdict: RoutingVerdictV2;
  human: boolean;
  /** Who holds it: a human's assignment, or none (the agent acts, or nobody qualified and it is queued). */
  assignment: Assignment | undefined;
  decided_at: string;
  /** The rules whose supervisors were told at the decision. */
  notified: string[];
}

/**
 * The decision, in its four moments, and who takes the task; recorded, and answered to the decide update.
 * A human decision with nobody qualified is queued, never dropped.
 */
export async function decide(run: RoutingRun): Promise<Decided> {
  const { task, routing_id } = run.input;
  const { reviewers: candidates, ...context } = await routingActivities.loadRoutingContext(task, run.input.organization_id);
  const { moments, verdict } = decideRoutingMoments({ task, ...context });
  const human = needsHuman(verdict.decision);
  const required = verdict.required_capabilities;
  const assignment = human ? assignReviewer(candidatesCover(task.required_capabilities, required) ? candidates : await routingActivities.loadReviewers(required, run.input.organization_id), required) : undefined;
  const decidedAt = run.now();
  const assigned_to: AssignedTo | undefined = !human
    ? { type: 'ai_agent', did: agentDid(task.ai_agent_id), agent_id: task.ai_agent_id, capabilities_matched: [] }
    : assignment && { type: 'human', did: assignment.did, capabilities_matched: assignment.capabilities_matched };
  const estimated_response_time = human ? run.input.escalation_timeouts_seconds[verdict.escalation_level as HumanEscalationLevel] : 0;
  const told = human ? supervisorNotifications(routing_id, verdict.notifications, verdict.escalation_level, []) : { events: [], notified: [] };
  const steps = decisionRecords({ routing_id, task, verdict, moments, human, assigned_to, notifications: told.events });
  const decided = {
    decision: verdict.decision,
    risk_level: verdict.risk.level,
    domain: context.domain,
    routing_mode: task.routing_mode ?? 'ai_first',
    fourth_law_triggered: verdict.fourth_law_triggered,
    safety_violation_count: verdict.violations.length,
    rules_triggered: verdict.rules_triggered,
  };
  const result = { verdict, human, assignment, decided_at: decidedAt, notified: told.notified };

  if (!assigned_to) {
    const queued = queuedFor(required);
    const decision_result: RoutingDecisionResult = { ...resultOf(run, verdict, decidedAt, estimated_response_time, null), queued };
    await run.record(steps, { ...decided, status: 'queued', reason: verdict.reason, escalation_level: verdict.escalation_level, estimated_response_time, decision_result }, 'decision_result');
    run.outcome = { ok: true, decision: decision_result };
    return result;
  }

  const decision_result: RoutingDecisionResult = resultOf(run, verdict, decidedAt, estimated_response_time, assigned_to);
  await run.record(
    steps,
    {
      ...decided,
      status: human ? 'in_progress' : 'completed',
      reason: verdict.reason,
      escalation_level: verdict.escalation_level,
      assigned_to,
      assigned_at: decidedAt,
      estimated_response_time,
      escalation_chain: human ? [{ level: 1, escalation_level: verdict.escalation_level, did: assigned_to.did, timestamp: decidedAt }] : [],
      decision_result,
      ...(human ? { escalated_at: decidedAt } : {}),
    },
    'decision_result',
  );
  run.outcome = { ok: true, decision: decision_result };
  return result;
}

function resultOf(run: RoutingRun, verdict: RoutingVerdictV2, decidedAt: string, estimated_response_time: number, assigned_to: AssignedTo | null): RoutingDecisionResult {
  return {
    routing_id: run.input.routing_id,
    decision: verdict.decision,
    reason: verdict.reason,
    assigned_to,
    escalation_level: verdict.escalation_level,
    estimated_response_time,
    safety_analysis: verdict.safety_analysis,
    provenance: { decision_made_by: 'orch_core', timestamp: decidedAt, rule_triggered: verdict.rule_triggered, ledger_anchor: PENDING_ANCHOR },
    fourth_law_triggered: verdict.fourth_law_triggered,
    rules_triggered: verdict.rules_triggered,
    ...(verdict.rule_conflict ? { rule_conflict: verdict.rule_conflict } : {}),
  };
}

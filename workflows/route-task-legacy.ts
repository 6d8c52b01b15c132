import { condition, setHandler } from '@temporalio/workflow';
import type { OutboxEvent } from '../domain/provenance';
import { agentDid, ORCH_CORE_DID } from '../domain/provenance';
import { selectReviewer, type Assignment } from '../domain/reviewer-assignment';
import { decideRouting, needsHuman, raiseEscalationLevel } from '../domain/routing-decision';
import { FAILURE_TYPES } from '../contracts/failures';
import { resolveUpdate, type AssignedTo, type HumanEscalationLevel, type ResolveRoutingInput, type RoutingDecisionResult, type RoutingResolution } from '../contracts/route-task';
import type { StepEntry } from '../domain/routing-steps';
import { PENDING_ANCHOR, refusal, routingActivities, type RoutingRun } from './route-task-run';

/**
 * The routing as the foundation ran it, before the orchestration layer (one decision step, no rules,
 * no load, no escalation by request). Routings started before the `orchestration-layer` patch replay
 * here, command for command; delete this file once none of them is open.
 */
export async function routeLegacy(run: RoutingRun): Promise<void> {
  const { input, state, now } = run;
  const { task, routing_id } = input;
  const { loadReviewers } = routingActivities;
  let pendingResolution: ResolveRoutingInput | undefined;
  const step = (step_id: string, entry: StepEntry, events: OutboxEvent[], changes: Parameters<RoutingRun['record']>[1], anchor_in?: 'decision_result' | 'resolution') =>
    run.record([{ step_id, entry, events }], changes, anchor_in);

  setHandler(
    resolveUpdate,
    async (request) => {
      pendingResolution = request;
      // Answer once the resolution is in the ledger, with its anchor.
      await condition(() => state.resolution !== undefined && state.resolution.ledger_anchor !== PENDING_ANCHOR);
      return state.resolution as RoutingResolution;
    },
    {
      validator: (request) => {
        if (state.status !== 'in_progress' || pendingResolution !== undefined) {
          throw refusal(FAILURE_TYPES.routingNotAwaitingReview, `Routing ${routing_id} is ${pendingResolution ? 'already being resolved' : state.status}, not awaiting review`);
        }
        if (!state.escalation_chain.some((entry) => entry.did === request.reviewer_did)) {
          throw refusal(FAILURE_TYPES.reviewerNotAssigned, `${request.reviewer_did} is not a reviewer on the escalation chain of routing ${routing_id}`);
        }
      },
    },
  );

  // The decision.
  const verdict = decideRouting(task);
  const human = needsHuman(verdict.decision);
  const assignment: Assignment | undefined = human ? selectReviewer(await loadReviewers(task.required_capabilities), task.required_capabilities) : undefined;
  const decidedAt = now();
  const assigned_to: AssignedTo | undefined = !human
    ? { type: 'ai_agent', did: agentDid(task.ai_agent_id), agent_id: task.ai_agent_id, capabilities_matched: [] }
    : assignment && { type: 'human', did: assignment.did, capabilities_matched: assignment.capabilities_matched };
  const startLevel = verdict.escalation_level as HumanEscalationLevel;
  const estimated_response_time = human ? input.escalation_timeouts_seconds[startLevel] : 0;
  const decisionEntry = {
    actor: { type: 'orch_core' as const, did: ORCH_CORE_DID },
    action: 'routing_decided',
    input_data: { ...task },
    output_data: {
      decision: verdict.decision,
      reason: verdict.reason,
      escalation_level: verdict.escalation_level,
      risk: verdict.risk,
      safety_analysis: verdict.safety_analysis,
      assigned_to: assigned_to ?? null,
    },
    reasoning:
      assigned_to || !human
        ? `Decided ${verdict.decision} because ${verdict.reason}`
        : `Decided ${verdict.decision} because ${verdict.reason}, but no reviewer holds ${task.required_capabilities.map((c) => c.capability_id).join(', ') || 'the needed capabilities'}`,
    rules_evaluated: verdict.rules_evaluated,
  };
  const decidedEvent: OutboxEvent = { event: 'routing.decided', data: { routing_id, task_type: task.task_type, decision: verdict.decision, reason: verdict.reason } };

  if (!assigned_to) {
    await step('routing_decision', decisionEntry, [decidedEvent], {
      status: 'failed',
      decision: verdict.decision,
      reason: 'no_qualified_reviewer',
      risk_level: verdict.risk.level,
    });
    run.outcome = { ok: false, code: 'no_qualified_reviewer', routing_id, required_capabilities: task.required_capabilities };
    return;
  }

  const decision_result: RoutingDecisionResult = {
    routing_id,
    decision: verdict.decision,
    reason: verdict.reason,
    assigned_to,
    escalation_level: verdict.escalation_level,
    estimated_response_time,
    safety_analysis: verdict.safety_analysis,
    provenance: { decision_made_by: 'orch_core', timestamp: decidedAt, rule_triggered: verdict.rule_triggered, ledger_anchor: PENDING_ANCHOR },
  };
  const escalationEvents: OutboxEvent[] = human
    ? [
        { event: 'routing.escalated', data: { task_id: routing_id, reason: verdict.reason, assigned_human: assigned_to.did } },
        { event: 'escalation.triggered', data: { task_id: routing_id, reason: verdict.reason, assigned_human: assigned_to.did, escalation_level: verdict.escalation_level } },
      ]
    : [];
  await step(
    'routing_decision',
    decisionEntry,
    [decidedEvent, ...escalationEvents],
    {
      status: human ? 'in_progress' : 'completed',
      decision: verdict.decision,
      reason: verdict.reason,
      escalation_level: verdict.escalation_level,
      risk_level: verdict.risk.level,
      assigned_to,
      assigned_at: decidedAt,
      estimated_response_time,
      escalation_chain: human ? [{ level: 1, escalation_level: verdict.escalation_level, did: assigned_to.did, timestamp: decidedAt }] : [],
      decision_result,
    },
    'decision_result',
  );
  run.outcome = { ok: true, decision: decision_result };
  if (!human || !assignment) return;

  // Waiting for the human, one escalation level at a time.
  let current: Assignment = assignment;
  let level: HumanEscalationLevel = startLevel;
  for (;;) {
    const resolvedInTime = await condition(() => pendingResolution !== undefined, input.escalation_timeouts_seconds[level] * 1000);
    if (resolvedInTime && pendingResolution) {
      const request = pendingResolution;
      await step(
        'resolution',
        {
          actor: { type: 'human', did: request.reviewer_did },
          action: 'routing_resolved',
          input_data: { ai_recommendation: task.ai_recommendation ?? null },
          output_data: { outcome: request.outcome, modified_recommendation: request.modified_recommendation ?? null },
          reasoning: request.comment ?? `Reviewer ${request.outcome} the routing`,
        },
        [{ event: 'routing.completed', data: { routing_id, outcome: request.outcome, resolved_by: request.reviewer_did } }],
        { status: 'completed', resolution: { ...request, resolved_at: now(), ledger_anchor: PENDING_ANCHOR } },
        'resolution',
      );
      return;
    }

    const next = selectReviewer(await loadReviewers(task.required_capabilities), task.required_capabilities, current.chain_level);
    if (!next) {
      await step(
        'expiry',
        {
          actor: { type: 'orch_core', did: ORCH_CORE_DID },
          action: 'routing_expired',
          input_data: { escalation_level: level, chain_length: state.escalation_chain.length },
          output_data: { status: 'expired' },
          reasoning: `No resolution within ${input.escalation_timeouts_seconds[level]} s at the last level of the chain`,
        },
        [{ event: 'audit.critical', data: { routing_id, reason: 'escalation_chain_exhausted' } }],
        { status: 'expired' },
      );
      return;
    }

    const from = current;
    const timedOutAfter = input.escalation_timeouts_seconds[level];
    current = next;
    level = raiseEscalationLevel(level) as HumanEscalationLevel;
    const chainLevel = state.escalation_chain.length + 1;
    const at = now();
    await step(
      `escalation:${chainLevel}`,
      {
        actor: { type: 'orch_core', did: ORCH_CORE_DID },
        action: 'escalated',
        input_data: { from_did: from.did, timed_out_after_seconds: timedOutAfter },
        output_data: { to_did: next.did, escalation_level: level, chain_level: chainLevel },
        reasoning: `${from.did} did not resolve in time; moved up the chain`,
      },
      [{ event: 'escalation.triggered', data: { task_id: routing_id, reason: 'reviewer_timeout', assigned_human: next.did, escalation_level: level } }],
      {
        escalation_level: level,
        assigned_to: { type: 'human', did: next.did, capabilities_matched: next.capabilities_matched },
        assigned_at: at,
        escalation_chain: [...state.escalation_chain, { level: chainLevel, escalation_level: level, did: next.did, timestamp: at }],
      },
    );
  }
}

import { uuid4 } from '@temporalio/workflow';
import type {
  AssignReviewerInput,
  ConfidenceOutcome,
  ConfidenceReport,
  EscalateOutcome,
  EscalateRoutingInput,
  EscalationRecord,
  ResolveRoutingInput,
  RoutingResolution,
} from '../contracts/route-task';
import { agentDid, ORCH_CORE_DID, type ProvenanceActor } from '../domain/provenance/records';
import { FOURTH_LAW_THRESHOLD, type EscalationLevel, type RequiredCapability } from '../domain/routing/decision';
import {
  adminAssignment,
  agentActor,
  escalationNeeds,
  levelForRequest,
  queuedFor,
  reviewerForRequest,
  suggestedReviewers,
} from '../domain/routing/escalation';
import {
  confidenceRecord,
  escalationRecord,
  escalationRefusedRecord,
  queuedByRequestRecord,
  resolutionRecord,
  type RequestFacts,
} from '../domain/routing/request-steps';
import { checkQueued } from './route-task-guards';
import type { Handover, Routing } from './route-task-routing';
import { PENDING_ANCHOR, routingActivities } from './route-task-run';

/** What the routing does on the requests its updates queue: each asks domain/ what to do, records it, and moves the routing on. */

/**
 * Hands the routing to a (new) human: from the agent or the queue, or from the current reviewer to
 * another. With nobody qualified, a routing a human holds stays theirs (no_qualified_reviewer); any other
 * waits in the queue (fail safe: a human was asked for).
 */
export async function escalate(
  routing: Routing,
  request: EscalateRoutingInput,
  actor: ProvenanceActor,
): Promise<EscalateOutcome> {
  const { run, routingId: routing_id } = routing;
  const holder = routing.holder;
  const target = request.target_capability
    ? { capability_id: request.target_capability, min_weight: request.min_weight ?? 0 }
    : undefined;
  const needs = escalationNeeds(routing.needs, target);
  const facts = { routing_id, task_id: run.input.request_id, actor, request, from_agent: holder !== 'human' };
  const next = reviewerForRequest(
    await routingActivities.loadReviewers(needs, routing.run.input.organization_id),
    needs,
    holder,
    { targeted: target !== undefined },
    routing.current,
  );
  const level = levelForRequest(
    holder,
    { targeted: target !== undefined, urgency: request.urgency },
    routing.level,
    routing.verdict.risk.level,
  );
  if (!next && holder === 'human') {
    routing.attempts += 1;
    await run.record([escalationRefusedRecord({ ...facts, attempt: routing.attempts, needs })], {});
    return { ok: false, code: 'no_qualified_reviewer', routing_id, required_capabilities: needs };
  }
  if (!next) return { ok: true, escalation: await toQueue(routing, facts, needs, level) };
  const recordOf = ({ escalation_id, chain_level }: Handover) =>
    escalationRecord({
      ...facts,
      escalation_id,
      from: routing.current?.did ?? run.input.task.ai_agent_id,
      to: next,
      level,
      chain_level,
      notifications: routing.notify(level),
    });
  const changes = { status: 'in_progress', escalation_level: level } as const;
  return { ok: true, escalation: await routing.handOver(next, level, recordOf, changes) };
}

/** Sends a routing that found nobody for an escalation to the queue (or keeps it there, with the wider needs and the level asked). */
async function toQueue(
  routing: Routing,
  facts: RequestFacts,
  needs: RequiredCapability[],
  level: EscalationLevel,
): Promise<EscalationRecord> {
  const { run } = routing;
  routing.attempts += 1;
  routing.needs = needs;
  const at = run.now();
  const escalation_id = `esc_${uuid4()}`;
  const estimated_response_time = routing.timeoutOf(level);
  const record = queuedByRequestRecord({
    ...facts,
    attempt: routing.attempts,
    needs,
    level,
    notifications: routing.notify(level),
  });
  const ledger_anchor = await run.record([record], {
    status: 'queued',
    escalation_level: level,
    assigned_to: undefined,
    assigned_at: undefined,
    estimated_response_time,
  });
  routing.queue(level, at);
  const { routing_id, escalation_chain } = run.state;
  return {
    escalation_id,
    routing_id,
    status: 'queued',
    assigned_to: null,
    queued: queuedFor(needs),
    escalation_level: level,
    estimated_response_time,
    escalation_chain,
    ledger_anchor,
  };
}

/** An admin hands the queued routing to the reviewer they chose. */
export async function assignByAdmin(routing: Routing, request: AssignReviewerInput): Promise<EscalationRecord> {
  checkQueued(routing);
  const { assignment, qualified } = adminAssignment(request.reviewer, routing.needs);
  return routing.assignFromQueue(assignment, {
    actor: { type: 'human', did: request.assigned_by.subject, instance_id: request.assigned_by.principal_id },
    by_admin: true,
    qualified,
    reason: request.reason,
  });
}

export async function resolve(routing: Routing, request: ResolveRoutingInput): Promise<RoutingResolution> {
  const { run } = routing;
  await run.record(
    [
      resolutionRecord({
        routing_id: routing.routingId,
        ai_recommendation: run.input.task.ai_recommendation,
        resolution: request,
      }),
    ],
    { status: 'completed', resolution: { ...request, resolved_at: run.now(), ledger_anchor: PENDING_ANCHOR } },
    'resolution',
  );
  routing.phase = 'closed';
  return run.state.resolution!;
}

/** Records the agent's confidence; below the Fourth Law's threshold an agent-held routing goes to a human. */
export async function reportConfidence(routing: Routing, report: ConfidenceReport): Promise<ConfidenceOutcome> {
  const { run } = routing;
  routing.reports += 1;
  const below = report.confidence < FOURTH_LAW_THRESHOLD;
  const held_by = routing.phase === 'human' ? 'human' : routing.phase === 'queue' ? 'queue' : 'ai_agent';
  const record = confidenceRecord({
    report: routing.reports,
    actor: agentActor(report.agent_id),
    confidence: report.confidence,
    proceed_autonomously: report.proceed_autonomously,
    reason: report.reason,
    held_by,
  });
  const anchor = await run.record([record], {});
  const escalation =
    below && routing.phase === 'agent'
      ? await escalate(
          routing,
          {
            reason: 'ai_confidence_below_threshold',
            requested_by: { type: 'ai_agent', did: agentDid(report.agent_id), agent_id: report.agent_id },
          },
          { type: 'orch_core', did: ORCH_CORE_DID },
        )
      : undefined;
  const humanAssigned = routing.phase === 'human';
  const suggested = below
    ? suggestedReviewers(
        humanAssigned ? routing.current?.did : undefined,
        await routingActivities.loadReviewers(routing.needs, routing.run.input.organization_id),
        routing.needs,
      )
    : [];
  const { state } = run;
  return {
    routing_id: routing.routingId,
    confidence: report.confidence,
    fourth_law_triggered: below,
    status: state.status,
    decision: state.decision ?? null,
    assigned_to: state.assigned_to ?? null,
    human_assigned: humanAssigned,
    ...(escalation ? { escalation } : {}),
    suggested_reviewers: suggested,
    ledger_anchor: escalation?.ok ? escalation.escalation.ledger_anchor : anchor,
  };
}

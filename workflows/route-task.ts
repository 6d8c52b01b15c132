import { allHandlersFinished, condition, patched, setHandler, uuid4, type ApplicationFailure } from '@temporalio/workflow';
import { dueNotifications, levelRank } from '../domain/escalation-rules';
import { agentDid, ORCH_CORE_DID, type OutboxEvent, type ProvenanceActor } from '../domain/provenance';
import { assignReviewer, suggestReviewers, type Assignment } from '../domain/reviewer-assignment';
import { FOURTH_LAW_THRESHOLD, LEVEL_FOR_RISK, needsHuman, raiseEscalationLevel, type EscalationLevel, type RequiredCapability } from '../domain/routing-decision';
import { decideRoutingMoments, type DecisionMoment } from '../domain/routing-moments';
import { FAILURE_TYPES } from '../contracts/failures';
import {
  decideUpdate,
  escalateUpdate,
  reportConfidenceUpdate,
  resolveUpdate,
  statusQuery,
  type AssignedTo,
  type ConfidenceOutcome,
  type ConfidenceReport,
  type EscalateOutcome,
  type EscalateRoutingInput,
  type HumanEscalationLevel,
  type ResolveRoutingInput,
  type RouteTaskInput,
  type RoutingDecisionResult,
  type RoutingResolution,
  type RoutingState,
} from '../contracts/route-task';
import { createRoutingRun, PENDING_ANCHOR, refusal, routingActivities, type RoutingRun } from './route-task-definitions';
import { routeLegacy } from './route-task-legacy';

/** Routings started before it replay on route-task-legacy.ts. */
export const ORCHESTRATION_PATCH = 'orchestration-layer';

/**
 * Decides who handles a task and sees the decision through: for a human, waits for their resolution and
 * moves up the escalation chain each time a level's timeout passes; escalates by request (the agent, or
 * someone by hand) and on a confidence report below the Fourth Law's threshold.
 */
export async function routeTaskWorkflow(input: RouteTaskInput): Promise<RoutingState> {
  const current = patched(ORCHESTRATION_PATCH);
  const run = createRoutingRun(input);
  setHandler(statusQuery, () => run.state);
  setHandler(decideUpdate, async () => {
    await condition(() => run.outcome !== undefined);
    return run.outcome!;
  });
  // Each path registers its own handlers before its first await.
  await (current ? routeCurrent(run) : routeLegacy(run));
  // Let in-flight updates reply before the run closes.
  await condition(allHandlersFinished);
  return run.state;
}

interface Pending<I, R> {
  input: I;
  result?: R;
  error?: ApplicationFailure;
}

type Request =
  | { kind: 'resolve'; pending: Pending<ResolveRoutingInput, RoutingResolution> }
  | { kind: 'escalate'; pending: Pending<EscalateRoutingInput, EscalateOutcome> }
  | { kind: 'confidence'; pending: Pending<ConfidenceReport, ConfidenceOutcome> };

/** Waits until the run loop has handled the request, and answers with its result or refusal. */
async function settled<I, R>(pending: Pending<I, R>): Promise<R> {
  await condition(() => pending.result !== undefined || pending.error !== undefined);
  if (pending.error) throw pending.error;
  return pending.result as R;
}

/**
 * deciding  the decision is being made
 * agent     decided for the agent alone in escalation mode: open to an escalation until the window ends
 * human     a human holds it: waiting for the resolution, with the level's deadline
 * closed    nothing more happens; requests still queued are refused
 */
type Phase = 'deciding' | 'agent' | 'human' | 'closed';

function mergeNeeds(needs: RequiredCapability[], target: RequiredCapability | undefined): RequiredCapability[] {
  if (!target) return needs;
  const own = needs.find((need) => need.capability_id === target.capability_id);
  return own ? needs.map((need) => (need === own ? { ...need, min_weight: Math.max(need.min_weight, target.min_weight) } : need)) : [...needs, target];
}

async function routeCurrent(run: RoutingRun): Promise<void> {
  const { input, state, now } = run;
  const { task, routing_id } = input;
  const { loadRoutingContext, loadReviewers } = routingActivities;
  const inbox: Request[] = [];
  let phase: Phase = 'deciding';
  const resolving = () => inbox.some((request) => request.kind === 'resolve');
  const open = () => (phase === 'agent' || phase === 'human') && !resolving();

  setHandler(
    resolveUpdate,
    (input) => {
      const pending: Pending<ResolveRoutingInput, RoutingResolution> = { input };
      inbox.push({ kind: 'resolve', pending });
      return settled(pending);
    },
    {
      validator: (request) => {
        if (phase !== 'human' || resolving()) {
          throw refusal(FAILURE_TYPES.routingNotAwaitingReview, `Routing ${routing_id} is ${resolving() ? 'already being resolved' : state.status}, not awaiting review`);
        }
        if (!state.escalation_chain.some((entry) => entry.did === request.reviewer_did)) {
          throw refusal(FAILURE_TYPES.reviewerNotAssigned, `${request.reviewer_did} is not a reviewer on the escalation chain of routing ${routing_id}`);
        }
      },
    },
  );
  const refuseUnlessOpen = (_request: unknown) => {
    if (!open()) throw refusal(FAILURE_TYPES.routingClosed, `Routing ${routing_id} is ${state.status} and no longer takes escalations or confidence reports`);
  };
  setHandler(
    escalateUpdate,
    (input) => {
      const pending: Pending<EscalateRoutingInput, EscalateOutcome> = { input };
      inbox.push({ kind: 'escalate', pending });
      return settled(pending);
    },
    { validator: refuseUnlessOpen },
  );
  setHandler(
    reportConfidenceUpdate,
    (input) => {
      const pending: Pending<ConfidenceReport, ConfidenceOutcome> = { input };
      inbox.push({ kind: 'confidence', pending });
      return settled(pending);
    },
    { validator: refuseUnlessOpen },
  );

  // The decision, in its four moments.
  const { reviewers: candidates, ...context } = await loadRoutingContext(task);
  const { moments, verdict } = decideRoutingMoments({ task, ...context });
  const human = needsHuman(verdict.decision);
  const required = verdict.required_capabilities;
  // The candidates hold the task's capabilities; a rule's target capability means loading them again.
  const coveredByCandidates = required.every((need) => task.required_capabilities.some((own) => own.capability_id === need.capability_id));
  const assignment = human ? assignReviewer(coveredByCandidates ? candidates : await loadReviewers(required), required) : undefined;
  const decidedAt = now();
  const assigned_to: AssignedTo | undefined = !human
    ? { type: 'ai_agent', did: agentDid(task.ai_agent_id), agent_id: task.ai_agent_id, capabilities_matched: [] }
    : assignment && { type: 'human', did: assignment.did, capabilities_matched: assignment.capabilities_matched };
  const startLevel = verdict.escalation_level;
  const estimated_response_time = human ? input.escalation_timeouts_seconds[startLevel as HumanEscalationLevel] : 0;
  // Each rule's supervisor is told once, when the routing's level first reaches the rule's threshold.
  const notified = new Set<string>();
  const notifications = (level: EscalationLevel): OutboxEvent[] => {
    const due = dueNotifications(verdict.notifications, level).filter((notification) => !notified.has(notification.rule_id));
    for (const notification of due) notified.add(notification.rule_id);
    return due.map((notification) => ({
      event: 'escalation.supervisor_notified',
      data: { routing_id, rule_id: notification.rule_id, notification_threshold: notification.notification_threshold, escalation_level: level },
    }));
  };
  const violationEvents: OutboxEvent[] = verdict.violations.flatMap((violation) => {
    const data = { routing_id, agent_id: task.ai_agent_id, ...violation };
    return [
      { event: 'safety.violation' as const, data },
      { event: 'safety.boundary_violation' as const, data },
    ];
  });
  const decisionMoment: DecisionMoment = {
    step_id: 'routing_decision',
    action: 'routing_decided',
    input_data: { ...task },
    output_data: {
      decision: verdict.decision,
      reason: verdict.reason,
      escalation_level: verdict.escalation_level,
      risk: verdict.risk,
      safety_analysis: verdict.safety_analysis,
      required_capabilities: required,
      assigned_to: assigned_to ?? null,
      ...(verdict.rule_conflict ? { rule_conflict: verdict.rule_conflict } : {}),
    },
    reasoning:
      assigned_to || !human
        ? `Decided ${verdict.decision} because ${verdict.reason}`
        : `Decided ${verdict.decision} because ${verdict.reason}, but no available reviewer holds ${required.map((c) => `${c.capability_id} ≥ ${c.min_weight}`).join(', ') || 'the needed capabilities'}`,
    rules_evaluated: verdict.rules_evaluated,
  };
  const decidedEvent: OutboxEvent = { event: 'routing.decided', data: { routing_id, task_type: task.task_type, decision: verdict.decision, reason: verdict.reason } };
  const outcomeEvents: OutboxEvent[] = !assigned_to
    ? []
    : human
      ? [
          { event: 'routing.escalated', data: { task_id: routing_id, reason: verdict.reason, assigned_human: assigned_to.did } },
          { event: 'escalation.triggered', data: { task_id: routing_id, reason: verdict.reason, assigned_human: assigned_to.did, escalation_level: verdict.escalation_level } },
          ...notifications(verdict.escalation_level),
        ]
      : [{ event: 'routing.completed', data: { routing_id, outcome: 'ai_autonomous', decided_for: task.ai_agent_id } }];
  const steps = [...moments, decisionMoment].map(({ step_id, ...moment }) => ({
    step_id,
    entry: { actor: { type: 'orch_core' as const, did: ORCH_CORE_DID }, ...moment },
    events: step_id === 'context_analysis' ? violationEvents : step_id === 'routing_decision' ? [decidedEvent, ...outcomeEvents] : [],
  }));
  const decided = {
    decision: verdict.decision,
    risk_level: verdict.risk.level,
    domain: context.domain,
    routing_mode: task.routing_mode ?? 'ai_first',
    fourth_law_triggered: verdict.fourth_law_triggered,
    safety_violation_count: verdict.violations.length,
    rules_triggered: verdict.rules_triggered,
  };

  if (!assigned_to) {
    await run.record(steps, { ...decided, status: 'failed', reason: 'no_qualified_reviewer' });
    run.outcome = { ok: false, code: 'no_qualified_reviewer', routing_id, required_capabilities: required };
    phase = 'closed';
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
    fourth_law_triggered: verdict.fourth_law_triggered,
    rules_triggered: verdict.rules_triggered,
    ...(verdict.rule_conflict ? { rule_conflict: verdict.rule_conflict } : {}),
  };
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

  // Who holds it now, and until when.
  let current: Assignment | undefined = assignment;
  let level = startLevel;
  let deadline = Date.parse(decidedAt) + (human ? estimated_response_time : (input.autonomous_escalation_window_seconds ?? 0)) * 1000;
  const windowOpen = !human && task.routing_mode === 'escalation' && (input.autonomous_escalation_window_seconds ?? 0) > 0;
  phase = human ? 'human' : windowOpen ? 'agent' : 'closed';
  let attempts = 0;
  let reports = 0;

  const timeoutOf = (of: EscalationLevel) => input.escalation_timeouts_seconds[of as HumanEscalationLevel];

  /** Hands the routing to a (new) human: from the agent, or from the current reviewer to another. */
  async function moveToHuman(request: EscalateRoutingInput, actor: ProvenanceActor): Promise<EscalateOutcome> {
    const target = request.target_capability ? { capability_id: request.target_capability, min_weight: request.min_weight ?? 0 } : undefined;
    const needs = mergeNeeds(required, target);
    const fromAgent = phase === 'agent';
    const reviewers = await loadReviewers(needs);
    const next = fromAgent || target ? assignReviewer(reviewers, needs, current ? { exclude: [current.did] } : {}) : assignReviewer(reviewers, needs, { aboveChainLevel: current?.chain_level ?? 0 });
    if (!next) {
      attempts += 1;
      await run.record(
        [
          {
            step_id: `escalation_attempt:${attempts}`,
            entry: {
              actor,
              action: 'escalation_refused',
              input_data: { reason: request.reason, target_capability: request.target_capability ?? null, urgency: request.urgency ?? null, context: request.context ?? {} },
              output_data: { required_capabilities: needs },
              reasoning: `No available reviewer holds ${needs.map((c) => `${c.capability_id} ≥ ${c.min_weight}`).join(', ') || 'the needed capabilities'}${fromAgent ? '' : ' above the current one'}`,
            },
            events: [],
          },
        ],
        {},
      );
      return { ok: false, code: 'no_qualified_reviewer', routing_id, required_capabilities: needs };
    }
    const byRisk = LEVEL_FOR_RISK[verdict.risk.level];
    // Moving a routing on never lowers its urgency.
    const asked: EscalationLevel = request.urgency ?? (fromAgent ? byRisk : raiseEscalationLevel(level));
    const nextLevel = fromAgent || levelRank(asked) > levelRank(level) ? asked : level;
    const at = now();
    const chainLevel = state.escalation_chain.length + 1;
    const escalation_id = `esc_${uuid4()}`;
    const holder: AssignedTo = { type: 'human', did: next.did, capabilities_matched: next.capabilities_matched };
    const events: OutboxEvent[] = [
      ...(fromAgent ? [{ event: 'routing.escalated' as const, data: { task_id: routing_id, reason: request.reason, assigned_human: next.did } }] : []),
      { event: 'escalation.triggered', data: { task_id: routing_id, escalation_id, reason: request.reason, assigned_human: next.did, escalation_level: nextLevel, requested_by: request.requested_by.did } },
      ...notifications(nextLevel),
    ];
    const chain = [...state.escalation_chain, { level: chainLevel, escalation_level: nextLevel, did: next.did, timestamp: at }];
    const anchor = await run.record(
      [
        {
          step_id: `escalation:${chainLevel}`,
          entry: {
            actor,
            action: fromAgent ? 'escalated_by_request' : 'reassigned_by_request',
            input_data: { escalation_id, reason: request.reason, from: current?.did ?? task.ai_agent_id, target_capability: request.target_capability ?? null, urgency: request.urgency ?? null, context: request.context ?? {} },
            output_data: { to_did: next.did, escalation_level: nextLevel, chain_level: chainLevel, capabilities_matched: next.capabilities_matched },
            reasoning: `${request.requested_by.did} asked for a human: ${request.reason}`,
          },
          events,
        },
      ],
      {
        status: 'in_progress',
        escalation_level: nextLevel,
        assigned_to: holder,
        assigned_at: at,
        estimated_response_time: timeoutOf(nextLevel),
        escalation_chain: chain,
        ...(state.escalated_at ? {} : { escalated_at: at }),
      },
    );
    phase = 'human';
    current = next;
    level = nextLevel;
    deadline = Date.parse(at) + timeoutOf(nextLevel) * 1000;
    return {
      ok: true,
      escalation: { escalation_id, routing_id, status: 'assigned', assigned_to: holder, escalation_level: nextLevel, estimated_response_time: timeoutOf(nextLevel), escalation_chain: chain, ledger_anchor: anchor },
    };
  }

  async function resolve(request: ResolveRoutingInput): Promise<RoutingResolution> {
    await run.record(
      [
        {
          step_id: 'resolution',
          entry: {
            actor: { type: 'human', did: request.reviewer_did },
            action: 'routing_resolved',
            input_data: { ai_recommendation: task.ai_recommendation ?? null },
            output_data: { outcome: request.outcome, modified_recommendation: request.modified_recommendation ?? null },
            reasoning: request.comment ?? `Reviewer ${request.outcome} the routing`,
          },
          events: [{ event: 'routing.completed', data: { routing_id, outcome: request.outcome, resolved_by: request.reviewer_did } }],
        },
      ],
      { status: 'completed', resolution: { ...request, resolved_at: now(), ledger_anchor: PENDING_ANCHOR } },
      'resolution',
    );
    phase = 'closed';
    return state.resolution!;
  }

  async function reportConfidence(report: ConfidenceReport): Promise<ConfidenceOutcome> {
    reports += 1;
    const below = report.confidence < FOURTH_LAW_THRESHOLD;
    const anchor = await run.record(
      [
        {
          step_id: `confidence:${reports}`,
          entry: {
            actor: { type: 'ai_agent', agent_id: report.agent_id, did: agentDid(report.agent_id) },
            action: 'confidence_reported',
            input_data: { confidence: report.confidence, proceed_autonomously: report.proceed_autonomously, reason: report.reason ?? null },
            output_data: { fourth_law_triggered: below, held_by: phase === 'human' ? 'human' : 'ai_agent' },
            reasoning: below ? `Confidence ${report.confidence} is below ${FOURTH_LAW_THRESHOLD}: a human takes over` : `Confidence ${report.confidence} meets ${FOURTH_LAW_THRESHOLD}`,
          },
          events: [],
        },
      ],
      {},
    );
    const escalation =
      below && phase === 'agent'
        ? await moveToHuman(
            { reason: 'ai_confidence_below_threshold', requested_by: { type: 'ai_agent', did: agentDid(report.agent_id), agent_id: report.agent_id } },
            { type: 'orch_core', did: ORCH_CORE_DID },
          )
        : undefined;
    const humanAssigned = phase === 'human';
    const suggested = below ? [...new Set([...(humanAssigned && current ? [current.did] : []), ...suggestReviewers(await loadReviewers(required), required)])] : [];
    return {
      routing_id,
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

  /** A level's time ran out: up the chain, or expired at its top. */
  async function timedOut(): Promise<void> {
    const from = current!;
    const timedOutAfter = timeoutOf(level);
    const next = assignReviewer(await loadReviewers(required), required, { aboveChainLevel: from.chain_level });
    if (!next) {
      await run.record(
        [
          {
            step_id: 'expiry',
            entry: {
              actor: { type: 'orch_core', did: ORCH_CORE_DID },
              action: 'routing_expired',
              input_data: { escalation_level: level, chain_length: state.escalation_chain.length },
              output_data: { status: 'expired' },
              reasoning: `No resolution within ${timedOutAfter} s at the last level of the chain`,
            },
            events: [{ event: 'audit.critical', data: { routing_id, reason: 'escalation_chain_exhausted' } }],
          },
        ],
        { status: 'expired' },
      );
      phase = 'closed';
      return;
    }
    current = next;
    level = raiseEscalationLevel(level);
    const chainLevel = state.escalation_chain.length + 1;
    const at = now();
    await run.record(
      [
        {
          step_id: `escalation:${chainLevel}`,
          entry: {
            actor: { type: 'orch_core', did: ORCH_CORE_DID },
            action: 'escalated',
            input_data: { from_did: from.did, timed_out_after_seconds: timedOutAfter },
            output_data: { to_did: next.did, escalation_level: level, chain_level: chainLevel },
            reasoning: `${from.did} did not resolve in time; moved up the chain`,
          },
          events: [
            { event: 'escalation.triggered', data: { task_id: routing_id, reason: 'reviewer_timeout', assigned_human: next.did, escalation_level: level } },
            ...notifications(level),
          ],
        },
      ],
      {
        escalation_level: level,
        assigned_to: { type: 'human', did: next.did, capabilities_matched: next.capabilities_matched },
        assigned_at: at,
        estimated_response_time: timeoutOf(level),
        escalation_chain: [...state.escalation_chain, { level: chainLevel, escalation_level: level, did: next.did, timestamp: at }],
      },
    );
    deadline = Date.parse(at) + timeoutOf(level) * 1000;
  }

  while (phase === 'agent' || phase === 'human') {
    const remaining = deadline - Date.now();
    const arrived = remaining > 0 && (await condition(() => inbox.length > 0, remaining));
    if (!arrived) {
      if (phase === 'agent') phase = 'closed';
      else await timedOut();
      continue;
    }
    const request = inbox.shift()!;
    if (request.kind === 'resolve') request.pending.result = await resolve(request.pending.input);
    else if (request.kind === 'escalate') {
      const { requested_by } = request.pending.input;
      const actor: ProvenanceActor = { type: requested_by.type, did: requested_by.did, ...(requested_by.agent_id ? { agent_id: requested_by.agent_id } : {}) };
      request.pending.result = await moveToHuman(request.pending.input, actor);
    } else request.pending.result = await reportConfidence(request.pending.input);
  }
  for (const request of inbox.splice(0)) request.pending.error = refusal(FAILURE_TYPES.routingClosed, `Routing ${routing_id} closed (${state.status}) before the request was handled`);
}

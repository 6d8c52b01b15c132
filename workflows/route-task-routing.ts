import { uuid4 } from '@temporalio/workflow';
import { FAILURE_TYPES } from '../contracts/failures';
import type { AssignedTo, ConfidenceOutcome, ConfidenceReport, EscalateOutcome, EscalateRoutingInput, HumanEscalationLevel, ResolveRoutingInput, RoutingResolution } from '../contracts/route-task';
import { agentDid, ORCH_CORE_DID, type ProvenanceActor } from '../domain/provenance';
import type { Assignment } from '../domain/reviewer-assignment';
import { FOURTH_LAW_THRESHOLD, type EscalationLevel, type RequiredCapability } from '../domain/routing-decision';
import { agentActor, escalationNeeds, holderAfterDecision, levelForRequest, nextOnTimeout, reviewerForRequest, suggestedReviewers, supervisorNotifications } from '../domain/routing-escalation';
import type { RoutingVerdictV2 } from '../domain/routing-moments';
import { chainEscalationRecord, confidenceRecord, escalationRecord, escalationRefusedRecord, expiryRecord, resolutionRecord } from '../domain/routing-steps';
import type { Decided } from './route-task-decide';
import { PENDING_ANCHOR, refusal, routingActivities, type RoutingRun } from './route-task-run';

/**
 * deciding  the decision is being made
 * agent     decided for the agent alone in escalation mode: open to an escalation until the window ends
 * human     a human holds it: waiting for the resolution, with the level's deadline
 * closed    nothing more happens; requests still queued are refused
 */
export type Phase = 'deciding' | 'agent' | 'human' | 'closed';

/** One routing's life after its start: each step asks domain/ what to do, records it, and moves the phase on. */
export class Routing {
  phase: Phase = 'deciding';
  /** When the holder's time ends (ms since the epoch, workflow time). */
  deadline = 0;
  private verdict!: RoutingVerdictV2;
  private current: Assignment | undefined;
  private level: EscalationLevel = 'none';
  private notified: string[] = [];
  private attempts = 0;
  private reports = 0;

  constructor(private readonly run: RoutingRun) {}

  get open(): boolean {
    return this.phase === 'agent' || this.phase === 'human';
  }

  private get routingId(): string {
    return this.run.input.routing_id;
  }

  private get required(): RequiredCapability[] {
    return this.verdict.required_capabilities;
  }

  private timeoutOf(level: EscalationLevel): number {
    return this.run.input.escalation_timeouts_seconds[level as HumanEscalationLevel];
  }

  private notify(level: EscalationLevel) {
    const { events, notified } = supervisorNotifications(this.routingId, this.verdict.notifications, level, this.notified);
    this.notified = notified;
    return events;
  }

  /** Refuses a resolution unless a human holds the routing and the reviewer is on its chain. */
  checkResolvable(request: ResolveRoutingInput, resolving: boolean): void {
    const { state } = this.run;
    if (this.phase !== 'human' || resolving) {
      throw refusal(FAILURE_TYPES.routingNotAwaitingReview, `Routing ${this.routingId} is ${resolving ? 'already being resolved' : state.status}, not awaiting review`);
    }
    if (!state.escalation_chain.some((entry) => entry.did === request.reviewer_did)) {
      throw refusal(FAILURE_TYPES.reviewerNotAssigned, `${request.reviewer_did} is not a reviewer on the escalation chain of routing ${this.routingId}`);
    }
  }

  /** Refuses an escalation or a confidence report once the routing no longer takes them. */
  checkOpen(resolving: boolean): void {
    if (!this.open || resolving) throw refusal(FAILURE_TYPES.routingClosed, `Routing ${this.routingId} is ${this.run.state.status} and no longer takes escalations or confidence reports`);
  }

  /** Takes the routing on from its decision: who holds it, and until when. */
  begin(decided: Decided): void {
    const { input } = this.run;
    this.verdict = decided.verdict;
    this.notified = decided.notified;
    if (!decided.assigned) {
      this.phase = 'closed';
      return;
    }
    this.current = decided.assignment;
    this.level = decided.verdict.escalation_level;
    const held = holderAfterDecision({
      human: decided.human,
      routing_mode: input.task.routing_mode,
      response_seconds: decided.human ? this.timeoutOf(this.level) : 0,
      window_seconds: input.autonomous_escalation_window_seconds ?? 0,
    });
    this.deadline = Date.parse(decided.decided_at) + held.seconds * 1000;
    this.phase = held.holder === 'none' ? 'closed' : held.holder;
  }

  /** Hands the routing to a (new) human: from the agent, or from the current reviewer to another. */
  async escalate(request: EscalateRoutingInput, actor: ProvenanceActor): Promise<EscalateOutcome> {
    const { run, routingId: routing_id } = this;
    const holder = this.phase === 'agent' ? 'agent' : 'human';
    const target = request.target_capability ? { capability_id: request.target_capability, min_weight: request.min_weight ?? 0 } : undefined;
    const needs = escalationNeeds(this.required, target);
    const facts = { routing_id, actor, request, from_agent: holder === 'agent' };
    const next = reviewerForRequest(await routingActivities.loadReviewers(needs), needs, holder, { targeted: target !== undefined }, this.current);
    if (!next) {
      this.attempts += 1;
      await run.record([escalationRefusedRecord({ ...facts, attempt: this.attempts, needs })], {});
      return { ok: false, code: 'no_qualified_reviewer', routing_id, required_capabilities: needs };
    }
    const level = levelForRequest(holder, { targeted: target !== undefined, urgency: request.urgency }, this.level, this.verdict.risk.level);
    const at = run.now();
    const chain_level = run.state.escalation_chain.length + 1;
    const escalation_id = `esc_${uuid4()}`;
    const assigned_to: AssignedTo = { type: 'human', did: next.did, capabilities_matched: next.capabilities_matched };
    const record = escalationRecord({ ...facts, escalation_id, from: this.current?.did ?? this.run.input.task.ai_agent_id, to: next, level, chain_level, notifications: this.notify(level) });
    const escalation_chain = [...run.state.escalation_chain, { level: chain_level, escalation_level: level, did: next.did, timestamp: at }];
    const estimated_response_time = this.timeoutOf(level);
    const ledger_anchor = await run.record([record], {
      status: 'in_progress',
      escalation_level: level,
      assigned_to,
      assigned_at: at,
      estimated_response_time,
      escalation_chain,
      ...(run.state.escalated_at ? {} : { escalated_at: at }),
    });
    this.hand(next, level, at);
    return { ok: true, escalation: { escalation_id, routing_id, status: 'assigned', assigned_to, escalation_level: level, estimated_response_time, escalation_chain, ledger_anchor } };
  }

  private hand(to: Assignment, level: EscalationLevel, at: string): void {
    this.phase = 'human';
    this.current = to;
    this.level = level;
    this.deadline = Date.parse(at) + this.timeoutOf(level) * 1000;
  }

  async resolve(request: ResolveRoutingInput): Promise<RoutingResolution> {
    const { run } = this;
    await run.record(
      [resolutionRecord({ routing_id: this.routingId, ai_recommendation: this.run.input.task.ai_recommendation, resolution: request })],
      { status: 'completed', resolution: { ...request, resolved_at: run.now(), ledger_anchor: PENDING_ANCHOR } },
      'resolution',
    );
    this.phase = 'closed';
    return run.state.resolution!;
  }

  async reportConfidence(report: ConfidenceReport): Promise<ConfidenceOutcome> {
    const { run } = this;
    this.reports += 1;
    const below = report.confidence < FOURTH_LAW_THRESHOLD;
    const actor = agentActor(report.agent_id);
    const held_by = this.phase === 'human' ? 'human' : 'ai_agent';
    const record = confidenceRecord({ report: this.reports, actor, confidence: report.confidence, proceed_autonomously: report.proceed_autonomously, reason: report.reason, held_by });
    const anchor = await run.record([record], {});
    const escalation =
      below && this.phase === 'agent'
        ? await this.escalate({ reason: 'ai_confidence_below_threshold', requested_by: { type: 'ai_agent', did: agentDid(report.agent_id), agent_id: report.agent_id } }, { type: 'orch_core', did: ORCH_CORE_DID })
        : undefined;
    const humanAssigned = this.phase === 'human';
    const suggested = below ? suggestedReviewers(humanAssigned ? this.current?.did : undefined, await routingActivities.loadReviewers(this.required), this.required) : [];
    const { state } = run;
    return {
      routing_id: this.routingId,
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

  /** The holder's time ran out: the agent's window closes; a human's level moves up the chain, or expires at its top. */
  async timedOut(): Promise<void> {
    if (this.phase === 'agent') {
      this.phase = 'closed';
      return;
    }
    const { run, routingId: routing_id } = this;
    const from = this.current!;
    const timed_out_after_seconds = this.timeoutOf(this.level);
    const moved = nextOnTimeout(await routingActivities.loadReviewers(this.required), this.required, from, this.level);
    if (!moved) {
      await run.record([expiryRecord({ routing_id, level: this.level, chain_length: run.state.escalation_chain.length, timed_out_after_seconds })], { status: 'expired' });
      this.phase = 'closed';
      return;
    }
    const { next, level } = moved;
    const chain_level = run.state.escalation_chain.length + 1;
    const at = run.now();
    this.current = next;
    this.level = level;
    await run.record([chainEscalationRecord({ routing_id, from_did: from.did, timed_out_after_seconds, to_did: next.did, level, chain_level, notifications: this.notify(level) })], {
      escalation_level: level,
      assigned_to: { type: 'human', did: next.did, capabilities_matched: next.capabilities_matched },
      assigned_at: at,
      estimated_response_time: this.timeoutOf(level),
      escalation_chain: [...run.state.escalation_chain, { level: chain_level, escalation_level: level, did: next.did, timestamp: at }],
    });
    this.deadline = Date.parse(at) + this.timeoutOf(level) * 1000;
  }
}

import { upsertSearchAttributes, uuid4 } from '@temporalio/workflow';
import {
  EscalationLevelKey,
  RoutingStatusKey,
  type AssignedTo,
  type CarriedVerdict,
  type EscalationRecord,
  type HumanEscalationLevel,
  type RoutingState,
} from '../contracts/route-task';
import type { ProvenanceActor } from '../domain/provenance/records';
import { humanAssignee, type Assignment } from '../domain/routing/reviewer-assignment';
import type { EscalationLevel, RequiredCapability } from '../domain/routing/decision';
import {
  afterAgentWindow,
  holderAfterDecision,
  supervisorNotifications,
  type RoutingHolder,
} from '../domain/routing/escalation';
import { coveringFor, type RoutingStepRecord } from '../domain/routing/steps';
import { expiryRecord, queueAssignmentRecord } from '../domain/routing/waiting-steps';
import type { Decided } from '../contracts/route-task-decision';
import { notifyPerson } from './notify';
import type { RoutingRun } from './route-task-run';

/**
 * deciding  the decision is being made
 * agent     decided for the agent alone in escalation mode: open to an escalation until the window ends
 * review    decided for the agent alone and completed: open to a supervisor's manual escalation, which
 *           reopens it for a reviewer, until the review window ends
 * queue     a human is needed and none qualified was available: unassigned, waiting for one, its level
 *           rising at each deadline
 * human     a human holds it: waiting for the resolution, with the level's deadline
 * closed    nothing more happens; requests still queued are refused
 */
export type Phase = 'deciding' | 'agent' | 'review' | 'queue' | 'human' | 'closed';

/** One routing's state in time after its start; the steps (route-task-requests.ts, route-task-timeouts.ts) move it on. */
export class Routing {
  phase: Phase = 'deciding';
  /** When the holder's time ends (ms since the epoch, workflow time). */
  deadline = 0;
  verdict!: CarriedVerdict;
  /** What the reviewer must hold: the decision's needs, widened by an escalation while queued. */
  needs: RequiredCapability[] = [];
  current: Assignment | undefined;
  level: EscalationLevel = 'none';
  /** Set by the reviewerAvailable signal while queued: look for a reviewer again. */
  woken = false;
  attempts = 0;
  reports = 0;
  queueSteps = 0;
  /** When it began waiting in the queue (ms since the epoch, workflow time); the wait a relaxed need counts. */
  queuedSince: number | undefined;
  private notified: string[] = [];
  private decidedAt = '';

  constructor(readonly run: RoutingRun) {}

  get open(): boolean {
    return this.phase !== 'deciding' && this.phase !== 'closed';
  }

  /** Who a request moves the routing from, for domain/: the agent (also under review), the queue, or a human. */
  get holder(): RoutingHolder {
    return this.phase === 'queue' ? 'queue' : this.phase === 'human' ? 'human' : 'agent';
  }

  get routingId(): string {
    return this.run.input.routing_id;
  }

  timeoutOf(level: EscalationLevel): number {
    return this.run.input.escalation_timeouts_seconds[level as HumanEscalationLevel];
  }

  /** The supervisor notifications due at `level` that were not sent yet; marks them sent. */
  notify(level: EscalationLevel) {
    const { events, notified } = supervisorNotifications(
      this.routingId,
      this.verdict.notifications,
      level,
      this.notified,
    );
    this.notified = notified;
    return events;
  }

  /** Takes the routing on from its decision: who holds it, and until when. */
  begin(decided: Decided): void {
    const { input } = this.run;
    this.verdict = decided.verdict;
    this.needs = decided.verdict.required_capabilities;
    this.notified = decided.notified;
    this.current = decided.assignment;
    this.level = decided.verdict.escalation_level;
    const held = holderAfterDecision({
      human: decided.human,
      assigned: decided.assignment !== undefined,
      routing_mode: input.task.routing_mode,
      response_seconds: decided.human ? this.timeoutOf(this.level) : 0,
      window_seconds: input.autonomous_escalation_window_seconds ?? 0,
      review_seconds: input.review_window_seconds ?? 0,
    });
    this.decidedAt = decided.decided_at;
    this.deadline = Date.parse(decided.decided_at) + held.seconds * 1000;
    this.phase = held.holder === 'none' ? 'closed' : held.holder;
    if (this.phase === 'queue') this.queuedSince = Date.parse(decided.decided_at);
  }

  /** Closes with the routing as a reviewer's resolution claimed in Postgres recorded it, whatever this run had in hand. */
  closeResolved(resolved: RoutingState): void {
    const { state } = this.run;
    for (const key of Object.keys(state)) if (!(key in resolved)) Reflect.deleteProperty(state, key);
    Object.assign(state, resolved);
    upsertSearchAttributes([
      { key: RoutingStatusKey, value: state.status },
      { key: EscalationLevelKey, value: state.escalation_level },
    ]);
    this.phase = 'closed';
  }

  /** The agent's escalation window ended: open to a supervisor's review for the rest of the review window, or closed. */
  endAgentWindow(): void {
    const { input } = this.run;
    const next = afterAgentWindow(input.autonomous_escalation_window_seconds ?? 0, input.review_window_seconds ?? 0);
    if (next.holder === 'none') {
      this.phase = 'closed';
      return;
    }
    this.phase = 'review';
    this.deadline = Date.parse(this.decidedAt) + next.seconds * 1000;
  }

  /** Tells the reviewer who now holds the routing (by e-mail and Slack, beside the run). */
  notifyHolder(): void {
    if (this.phase !== 'human' || !this.current) return;
    const { input } = this.run;
    notifyPerson({
      kind: 'routing',
      organization_id: input.organization_id,
      item_id: this.routingId,
      reviewer_did: this.current.did,
    });
  }

  /** A human holds it now, at `level`, for that level's timeout. */
  hand(to: Assignment, level: EscalationLevel, at: string): void {
    this.phase = 'human';
    this.current = to;
    this.level = level;
    this.deadline = Date.parse(at) + this.timeoutOf(level) * 1000;
  }

  /** It waits in the queue at `level`, for that level's timeout. */
  queue(level: EscalationLevel, at: string): void {
    if (this.phase !== 'queue') this.queuedSince = Date.parse(at);
    this.phase = 'queue';
    this.current = undefined;
    this.level = level;
    this.deadline = Date.parse(at) + this.timeoutOf(level) * 1000;
  }

  /** Whole seconds it has waited in the queue (workflow time). */
  get waitedSeconds(): number {
    return this.queuedSince === undefined ? 0 : Math.floor((Date.now() - this.queuedSince) / 1000);
  }

  /**
   * When the routing next looks again: its deadline, or sooner, while queued, the moment a need's stated wait
   * runs out (relax_after_seconds), so a reviewer lacking only that need is found then.
   */
  get wakeAt(): number {
    if (this.phase !== 'queue' || this.queuedSince === undefined) return this.deadline;
    const since = this.queuedSince;
    const relaxing = this.needs
      .flatMap((need) => (need.relax_after_seconds === undefined ? [] : [since + need.relax_after_seconds * 1000]))
      .filter((at) => at > Date.now() && at < this.deadline);
    return Math.min(this.deadline, ...relaxing);
  }

  /** Hands the queued routing to a reviewer who became available, or whom an admin chose. */
  assignFromQueue(
    to: Assignment,
    how: { actor: ProvenanceActor; by_admin: boolean; qualified: boolean; reason?: string | undefined },
  ): Promise<EscalationRecord> {
    const { routingId: routing_id, level } = this;
    const recordOf = ({ escalation_id, chain_level }: Handover) =>
      queueAssignmentRecord({
        routing_id,
        task_id: this.run.input.request_id,
        ...how,
        reason: how.reason,
        escalation_id,
        to,
        level,
        chain_level,
        notifications: this.notify(level),
      });
    return this.handOver(to, level, recordOf, { status: 'in_progress' });
  }

  /**
   * Hands the routing to a human at `level`: records the step `recordOf` makes of the handover, with the
   * assignment and its place on the escalation chain, and answers with the escalation.
   */
  async handOver(
    to: Assignment,
    level: EscalationLevel,
    recordOf: (handover: Handover) => RoutingStepRecord,
    changes: Partial<RoutingState>,
  ): Promise<EscalationRecord> {
    const { run, routingId: routing_id } = this;
    const at = run.now();
    const chain_level = run.state.escalation_chain.length + 1;
    const escalation_id = `esc_${uuid4()}`;
    const assigned_to: AssignedTo = humanAssignee(to);
    const record = recordOf({ escalation_id, chain_level });
    const escalation_chain = [
      ...run.state.escalation_chain,
      { level: chain_level, escalation_level: level, did: to.did, ...coveringFor(to), timestamp: at },
    ];
    const estimated_response_time = this.timeoutOf(level);
    const ledger_anchor = await run.record([record], {
      ...changes,
      assigned_to,
      assigned_at: at,
      estimated_response_time,
      escalation_chain,
      ...(run.state.escalated_at ? {} : { escalated_at: at }),
    });
    this.hand(to, level, at);
    this.notifyHolder();
    return {
      escalation_id,
      routing_id,
      status: 'assigned',
      assigned_to,
      escalation_level: level,
      estimated_response_time,
      escalation_chain,
      ledger_anchor,
    };
  }

  /** Nobody is left to take the routing after `timed_out_after_seconds`: it expires at its level. */
  async expire(timed_out_after_seconds: number, queued = false): Promise<void> {
    const { run, routingId: routing_id, level } = this;
    const chain_length = run.state.escalation_chain.length;
    await run.record([expiryRecord({ routing_id, level, chain_length, timed_out_after_seconds, queued })], {
      status: 'expired',
    });
    this.phase = 'closed';
  }
}

/** A handover's place on the escalation chain, for the step that records it. */
export interface Handover {
  escalation_id: string;
  chain_level: number;
}

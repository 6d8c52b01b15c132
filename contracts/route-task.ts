import { defineQuery, defineSignal, defineUpdate } from '@temporalio/workflow';
import type { Urgency } from '../domain/rules/escalation-rules';
import type { LedgerAnchor } from '../domain/provenance/records';
import type { HumanActor } from '../domain/identity/human-acts';
import type { Assignment } from '../domain/routing/reviewer-assignment';
import type { RoutingVerdictV2 } from '../domain/routing/moments';
import type { EscalationLevel, RequiredCapability, RoutingDecisionKind, RoutingTask } from '../domain/routing/decision';
import type { RoutingStatus } from '../domain/routing/progress';
import { FAILURE_TYPES } from './failures';
import type {
  AssignedTo,
  EscalationChainEntry,
  ResolveRoutingInput,
  RoutingDecisionResult,
  RoutingResolution,
  RoutingState,
} from './aggregates/routing';

export type {
  AssignedTo,
  EscalationChainEntry,
  QueuedFor,
  ResolutionOutcome,
  ResolveRoutingInput,
  RoutingDecisionResult,
  RoutingResolution,
  RoutingState,
} from './aggregates/routing';

/**
 * What the rest of the service shares with routeTaskWorkflow: its input and state, its updates and query,
 * the failures its updates refuse with, and the search attributes it keeps. Imports no workflow code, so
 * db/, activities/, services/ and api/ take the shapes from here.
 */

export const ROUTE_TASK_WORKFLOW_TYPE = 'routeTaskWorkflow';
export type RouteTaskWorkflow = (input: RouteTaskInput) => Promise<RoutingState>;

export {
  AgentIdKey,
  ConfidenceKey,
  DecisionKey,
  EscalationLevelKey,
  RoutingStatusKey,
  TaskTypeKey,
} from './search-attributes';

export type HumanEscalationLevel = Exclude<EscalationLevel, 'none'>;

export interface RouteTaskInput {
  routing_id: string;
  /** The caller's own request id, kept for correlation. */
  request_id?: string | undefined;
  task: RoutingTask;
  /** The principal that submitted the routing. */
  requested_by: string;
  /** The organization the routing belongs to; absent (histories from before tenancy): the default one. */
  organization_id?: string | undefined;
  /** Seconds a reviewer at each level has before the routing moves up the chain. */
  escalation_timeouts_seconds: Record<HumanEscalationLevel, number>;
  /** Seconds an autonomous routing in escalation mode stays open to an escalation; 0 or absent: it closes at once. */
  autonomous_escalation_window_seconds?: number | undefined;
  /**
   * Seconds after the decision an autonomous routing (any mode) stays open to a manual escalation by a
   * human (a supervisor's review, which reopens it for a reviewer); 0 or absent: none.
   */
  review_window_seconds?: number | undefined;
  /**
   * The decision, already recorded (routing row, provenance, events) by the routing service before the
   * start: the workflow carries it on instead of deciding. Absent only for routings started before the
   * decision moved to the request path, which decide in the workflow (decideUpdate).
   */
  decided?: RecordedDecision | undefined;
}

/**
 * What of the verdict the routing needs in time: its decision and level, the risk that sets an escalation's
 * level, what a reviewer must hold, and the supervisors to tell as it climbs. The rest (the rules evaluated,
 * the safety analysis) is in the decision's record and the routing's state, not repeated in its history.
 */
export type CarriedVerdict = Pick<
  RoutingVerdictV2,
  'decision' | 'escalation_level' | 'required_capabilities' | 'notifications'
> & { risk: Pick<RoutingVerdictV2['risk'], 'level'> };

/** What the decision leaves for the rest of the routing, in time. */
export interface Decided {
  verdict: CarriedVerdict;
  human: boolean;
  /** Who holds it: a human's assignment, or none (the agent acts, or nobody qualified and it is queued). */
  assignment: Assignment | undefined;
  decided_at: string;
  /** The rules whose supervisors were told at the decision. */
  notified: string[];
}

/** A decision recorded before its workflow started. */
export interface RecordedDecision {
  decided: Decided;
  /** The routing's state as recorded with the decision (version 1), its ledger anchor included. */
  state: RoutingState;
}

export interface DecideOutcome {
  ok: true;
  decision: RoutingDecisionResult;
}

/** A request to hand the routing to a human, or to another one: from its agent (POST /escalate) or by hand. */
export interface EscalateRoutingInput {
  reason: string;
  /**
   * A person's request names their Passport and credential (absent in histories from before); a credential that
   * authenticates no person (a PAT, a service account, an OAuth client) is `principal`: its kind and id, and the DID
   * its request named, which nothing proves.
   */
  requested_by: {
    type: 'ai_agent' | 'human' | 'principal';
    did: string;
    agent_id?: string | undefined;
    person?: HumanActor | undefined;
    principal?: { kind: string; id: string; named_did?: string | undefined } | undefined;
  };
  /** A capability the new reviewer must hold; without one a human-held routing moves up the chain. */
  target_capability?: string | undefined;
  min_weight?: number | undefined;
  urgency?: Urgency | undefined;
  context?: Record<string, unknown> | undefined;
}

/** An admin hands a queued routing to a reviewer of their choice (POST /v1/orch/routing/{id}/assign). */
export interface AssignReviewerInput {
  reviewer: { did: string; capabilities: Record<string, number>; chain_level: number };
  /** The authenticated caller who assigned it, recorded as the actor: their subject, and the principal (credential) they used. */
  assigned_by: { subject: string; principal_id: string };
  reason?: string | undefined;
}

/**
 * A hand-over to a human (by request, from the queue or by an admin), or a routing sent to the queue for want
 * of one: who holds it and how soon they answer, as at the decision (assigned_to null when queued).
 */
export interface EscalationRecord extends Pick<
  RoutingDecisionResult,
  'routing_id' | 'assigned_to' | 'queued' | 'escalation_level' | 'estimated_response_time'
> {
  escalation_id: string;
  status: 'assigned' | 'queued';
  escalation_chain: EscalationChainEntry[];
  ledger_anchor: LedgerAnchor;
}

export type EscalateOutcome =
  | { ok: true; escalation: EscalationRecord }
  | { ok: false; code: 'no_qualified_reviewer'; routing_id: string; required_capabilities: RequiredCapability[] };

/** The agent's confidence for the running task, as it reports it (POST /confidence). */
export interface ConfidenceReport {
  confidence: number;
  /** The agent means to act alone on it. */
  proceed_autonomously: boolean;
  reason?: string | undefined;
  agent_id: string;
}

export interface ConfidenceOutcome {
  routing_id: string;
  confidence: number;
  fourth_law_triggered: boolean;
  status: RoutingStatus;
  decision: RoutingDecisionKind | null;
  assigned_to: AssignedTo | null;
  /** Whether a human holds the task (after this report, or before it). */
  human_assigned: boolean;
  /** Present when this report moved the routing to a human (or tried to). */
  escalation?: EscalateOutcome;
  /** Qualified reviewers, least loaded first (the assignee first), when a human is needed. */
  suggested_reviewers: string[];
  ledger_anchor: LedgerAnchor;
}

/** The failures the routing's updates are refused with; the API turns each into the problem of the same code. */
export const ROUTING_REFUSALS = [
  FAILURE_TYPES.routingNotAwaitingReview,
  FAILURE_TYPES.reviewerNotAssigned,
  FAILURE_TYPES.routingClosed,
  FAILURE_TYPES.routingNotQueued,
] as const;
export type RoutingRefusal = (typeof ROUTING_REFUSALS)[number];

export const decideUpdate = defineUpdate<DecideOutcome>('decide');
export const resolveUpdate = defineUpdate<RoutingResolution, [ResolveRoutingInput]>('resolve');
export const escalateUpdate = defineUpdate<EscalateOutcome, [EscalateRoutingInput]>('escalate');
export const reportConfidenceUpdate = defineUpdate<ConfidenceOutcome, [ConfidenceReport]>('reportConfidence');
export const assignUpdate = defineUpdate<EscalationRecord, [AssignReviewerInput]>('assign');
export const statusQuery = defineQuery<RoutingState>('status');
/** A reviewer who may qualify became available: a queued routing looks for one again. */
export const reviewerAvailableSignal = defineSignal('reviewerAvailable');
/**
 * A reviewer's resolution was claimed in Postgres (services/routing/resolution.ts): the routing as it
 * recorded it, which the workflow takes and closes with. Sent by the outbox, so it may come twice.
 */
export const routingResolvedSignal = defineSignal<[RoutingState]>('routingResolved');

/** What recording a step gives back: its last record's anchor, or, when a resolution claimed the routing first, the routing as resolved. */
export type RecordedStep = LedgerAnchor | { resolved_meanwhile: RoutingState };

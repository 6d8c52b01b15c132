import { ApplicationFailure, defineQuery, defineUpdate, proxyLocalActivities, upsertSearchAttributes, workflowInfo } from '@temporalio/workflow';
import type { createRoutingActivities } from '../activities/routing';
import type { Urgency } from '../domain/escalation-rules';
import type { LedgerAnchor, OutboxEvent, ProvenanceEntry } from '../domain/provenance';
import type { CapabilityMatch } from '../domain/reviewer-assignment';
import type { EscalationLevel, RequiredCapability, RoutingDecisionKind, RoutingMode, RoutingTask, RoutingVerdict } from '../domain/routing-decision';
import type { RoutingStatus } from '../domain/routing-progress';
import { DecisionKey, EscalationLevelKey, RoutingStatusKey } from '../contracts/search-attributes';

/** The types, updates, queries and step recorder of routeTaskWorkflow, shared by its current and legacy paths. */

export type HumanEscalationLevel = Exclude<EscalationLevel, 'none'>;

export interface RouteTaskInput {
  routing_id: string;
  /** The caller's own request id, kept for correlation. */
  request_id?: string | undefined;
  task: RoutingTask;
  /** The principal that submitted the routing. */
  requested_by: string;
  /** Seconds a reviewer at each level has before the routing moves up the chain. */
  escalation_timeouts_seconds: Record<HumanEscalationLevel, number>;
  /** Seconds an autonomous routing in escalation mode stays open to an escalation; 0 or absent: it closes at once. */
  autonomous_escalation_window_seconds?: number | undefined;
}

export interface AssignedTo {
  type: 'human' | 'ai_agent';
  did: string;
  agent_id?: string;
  capabilities_matched: CapabilityMatch[];
}

export interface EscalationChainEntry {
  level: number;
  escalation_level: EscalationLevel;
  did: string;
  timestamp: string;
}

export interface RoutingDecisionResult {
  routing_id: string;
  decision: RoutingDecisionKind;
  reason: string;
  assigned_to: AssignedTo;
  escalation_level: EscalationLevel;
  estimated_response_time: number;
  safety_analysis: RoutingVerdict['safety_analysis'];
  provenance: { decision_made_by: string; timestamp: string; rule_triggered: string; ledger_anchor: LedgerAnchor };
  /** Set by routings decided since the orchestration layer. */
  fourth_law_triggered?: boolean;
  rules_triggered?: string[];
  rule_conflict?: { rule_ids: string[]; target_capabilities: string[] };
}

export type DecideOutcome =
  | { ok: true; decision: RoutingDecisionResult }
  | { ok: false; code: 'no_qualified_reviewer'; routing_id: string; required_capabilities: RoutingTask['required_capabilities'] };

export const RESOLUTION_OUTCOMES = ['approved', 'rejected', 'modified'] as const;
export type ResolutionOutcome = (typeof RESOLUTION_OUTCOMES)[number];

export interface ResolveRoutingInput {
  reviewer_did: string;
  /** approved: the AI's recommendation stands; rejected: it does not; modified: it stands as changed. */
  outcome: ResolutionOutcome;
  comment?: string | undefined;
  modified_recommendation?: string | undefined;
}

export interface RoutingResolution extends ResolveRoutingInput {
  resolved_at: string;
  ledger_anchor: LedgerAnchor;
}

/** A request to hand the routing to a human, or to another one: from its agent (POST /escalate) or by hand. */
export interface EscalateRoutingInput {
  reason: string;
  requested_by: { type: 'ai_agent' | 'human'; did: string; agent_id?: string | undefined };
  /** A capability the new reviewer must hold; without one a human-held routing moves up the chain. */
  target_capability?: string | undefined;
  min_weight?: number | undefined;
  urgency?: Urgency | undefined;
  context?: Record<string, unknown> | undefined;
}

export interface EscalationRecord {
  escalation_id: string;
  routing_id: string;
  status: 'assigned';
  assigned_to: AssignedTo;
  escalation_level: EscalationLevel;
  estimated_response_time: number;
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

/** Everything the routing's read model and status query show; versioned so projections apply in order. */
export interface RoutingState {
  routing_id: string;
  version: number;
  status: RoutingStatus;
  task_type: string;
  ai_agent_id: string;
  ai_confidence: number;
  decision?: RoutingDecisionKind;
  reason?: string;
  escalation_level: EscalationLevel;
  risk_level?: string;
  assigned_to?: AssignedTo;
  assigned_at?: string;
  estimated_response_time?: number;
  escalation_chain: EscalationChainEntry[];
  resolution?: RoutingResolution;
  decision_result?: RoutingDecisionResult;
  domain?: string;
  routing_mode?: RoutingMode;
  fourth_law_triggered?: boolean;
  safety_violation_count?: number;
  /** Escalation rules that triggered at the decision. */
  rules_triggered?: string[];
  /** When a human first took the routing: at the decision, or by a later escalation. */
  escalated_at?: string;
  created_at: string;
  updated_at: string;
}

/** Failure types the API turns into problems; one shared list keeps them in step. */
export const ROUTING_FAILURES = {
  notAwaitingReview: 'routing_not_awaiting_review',
  reviewerNotAssigned: 'reviewer_not_assigned',
  closed: 'routing_closed',
} as const;

export function refusal(type: (typeof ROUTING_FAILURES)[keyof typeof ROUTING_FAILURES], message: string): ApplicationFailure {
  return ApplicationFailure.create({ type, message, nonRetryable: true });
}

/** Stands in for a step's anchor until the ledger has assigned it. */
export const PENDING_ANCHOR: LedgerAnchor = { transaction_id: '', block_number: 0 };

export const decideUpdate = defineUpdate<DecideOutcome>('decide');
export const resolveUpdate = defineUpdate<RoutingResolution, [ResolveRoutingInput]>('resolve');
export const escalateUpdate = defineUpdate<EscalateOutcome, [EscalateRoutingInput]>('escalate');
export const reportConfidenceUpdate = defineUpdate<ConfidenceOutcome, [ConfidenceReport]>('reportConfidence');
export const statusQuery = defineQuery<RoutingState>('status');

// Local activities: short Postgres reads and writes on the path of the synchronous decision, without a
// round trip through the server for each one.
export const routingActivities = proxyLocalActivities<ReturnType<typeof createRoutingActivities>>({
  startToCloseTimeout: '10 seconds',
  retry: { initialInterval: '100 ms', maximumInterval: '10 seconds' },
});

export type StepEntry = Omit<ProvenanceEntry, 'subject_id' | 'step_id' | 'timestamp'>;

export interface RoutingRun {
  readonly input: RouteTaskInput;
  readonly state: RoutingState;
  outcome: DecideOutcome | undefined;
  now(): string;
  /**
   * Records provenance steps and the state they leave in one local activity; returns the last step's
   * anchor. The search attributes follow the state so that the Temporal UI filters on what the read model
   * shows.
   */
  record(steps: Array<{ step_id: string; entry: StepEntry; events: OutboxEvent[] }>, changes: Partial<RoutingState>, anchor_in?: 'decision_result' | 'resolution'): Promise<LedgerAnchor>;
}

export function createRoutingRun(input: RouteTaskInput): RoutingRun {
  const { task, routing_id } = input;
  const now = () => new Date().toISOString();
  const state: RoutingState = {
    routing_id,
    version: 0,
    status: 'pending',
    task_type: task.task_type,
    ai_agent_id: task.ai_agent_id,
    ai_confidence: task.ai_confidence,
    escalation_level: 'none',
    escalation_chain: [],
    created_at: new Date(workflowInfo().startTime).toISOString(),
    updated_at: now(),
  };
  return {
    input,
    state,
    outcome: undefined,
    now,
    async record(steps, changes, anchor_in) {
      const at = now();
      Object.assign(state, changes, { version: state.version + 1, updated_at: at });
      upsertSearchAttributes([
        { key: RoutingStatusKey, value: state.status },
        { key: EscalationLevelKey, value: state.escalation_level },
        ...(state.decision ? [{ key: DecisionKey, value: state.decision }] : []),
      ]);
      const anchor = await routingActivities.recordRoutingStep({
        provenance: steps.map(({ step_id, entry, events }) => ({ entry: { subject_id: routing_id, step_id, timestamp: at, ...entry }, events })),
        projection: { state: { ...state }, request_id: input.request_id, task, requested_by: input.requested_by },
        anchor_in,
      });
      if (anchor_in === 'decision_result' && state.decision_result) state.decision_result.provenance.ledger_anchor = anchor;
      if (anchor_in === 'resolution' && state.resolution) state.resolution.ledger_anchor = anchor;
      return anchor;
    },
  };
}

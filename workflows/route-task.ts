import {
  allHandlersFinished,
  ApplicationFailure,
  condition,
  defineQuery,
  defineUpdate,
  proxyLocalActivities,
  setHandler,
  upsertSearchAttributes,
  workflowInfo,
} from '@temporalio/workflow';
import type { createRoutingActivities } from '../activities/routing';
import type { LedgerAnchor, OutboxEvent, ProvenanceEntry } from '../domain/provenance';
import { agentDid, ORCH_CORE_DID } from '../domain/provenance';
import { selectReviewer, type Assignment, type CapabilityMatch } from '../domain/reviewer-assignment';
import {
  decideRouting,
  needsHuman,
  raiseEscalationLevel,
  type EscalationLevel,
  type RoutingDecisionKind,
  type RoutingTask,
  type RoutingVerdict,
} from '../domain/routing-decision';
import type { RoutingStatus } from '../domain/routing-progress';
import { DecisionKey, EscalationLevelKey, RoutingStatusKey } from './search-attributes';

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
  created_at: string;
  updated_at: string;
}

/** Failure types the API turns into problems; one shared list keeps them in step. */
export const ROUTING_FAILURES = {
  notAwaitingReview: 'routing_not_awaiting_review',
  reviewerNotAssigned: 'reviewer_not_assigned',
} as const;

/** Stands in for a step's anchor until the ledger has assigned it. */
const PENDING_ANCHOR: LedgerAnchor = { transaction_id: '', block_number: 0 };

export const decideUpdate = defineUpdate<DecideOutcome>('decide');
export const resolveUpdate = defineUpdate<RoutingResolution, [ResolveRoutingInput]>('resolve');
export const statusQuery = defineQuery<RoutingState>('status');

// Local activities: short Postgres reads and writes on the path of the synchronous decision, without a
// round trip through the server for each one.
const { loadReviewers, recordRoutingStep } = proxyLocalActivities<ReturnType<typeof createRoutingActivities>>({
  startToCloseTimeout: '10 seconds',
  retry: { initialInterval: '100 ms', maximumInterval: '10 seconds' },
});

/**
 * Decides who handles a task and sees the decision through: for a human, waits for their resolution and
 * moves up the escalation chain each time a level's timeout passes.
 */
export async function routeTaskWorkflow(input: RouteTaskInput): Promise<RoutingState> {
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
  let outcome: DecideOutcome | undefined;
  let pendingResolution: ResolveRoutingInput | undefined;

  setHandler(statusQuery, () => state);
  setHandler(decideUpdate, async () => {
    await condition(() => outcome !== undefined);
    return outcome as DecideOutcome;
  });
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
          throw ApplicationFailure.create({
            type: ROUTING_FAILURES.notAwaitingReview,
            message: `Routing ${routing_id} is ${pendingResolution ? 'already being resolved' : state.status}, not awaiting review`,
            nonRetryable: true,
          });
        }
        if (!state.escalation_chain.some((entry) => entry.did === request.reviewer_did)) {
          throw ApplicationFailure.create({
            type: ROUTING_FAILURES.reviewerNotAssigned,
            message: `${request.reviewer_did} is not a reviewer on the escalation chain of routing ${routing_id}`,
            nonRetryable: true,
          });
        }
      },
    },
  );

  /**
   * Records one step: its provenance, and the state it leaves, in one local activity. The search
   * attributes follow the state so that the Temporal UI filters on what the read model shows.
   */
  async function step(
    step_id: string,
    entry: Omit<ProvenanceEntry, 'subject_id' | 'step_id' | 'timestamp'>,
    events: OutboxEvent[],
    changes: Partial<RoutingState>,
    anchor_in?: 'decision_result' | 'resolution',
  ): Promise<LedgerAnchor> {
    const at = now();
    Object.assign(state, changes, { version: state.version + 1, updated_at: at });
    upsertSearchAttributes([
      { key: RoutingStatusKey, value: state.status },
      { key: EscalationLevelKey, value: state.escalation_level },
      ...(state.decision ? [{ key: DecisionKey, value: state.decision }] : []),
    ]);
    const anchor = await recordRoutingStep({
      provenance: { entry: { subject_id: routing_id, step_id, timestamp: at, ...entry }, events },
      projection: { state: { ...state }, request_id: input.request_id, task, requested_by: input.requested_by },
      anchor_in,
    });
    if (anchor_in === 'decision_result' && state.decision_result) state.decision_result.provenance.ledger_anchor = anchor;
    if (anchor_in === 'resolution' && state.resolution) state.resolution.ledger_anchor = anchor;
    return anchor;
  }

  async function run(): Promise<void> {
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
      outcome = { ok: false, code: 'no_qualified_reviewer', routing_id, required_capabilities: task.required_capabilities };
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
    outcome = { ok: true, decision: decision_result };
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

  await run();
  // Let an in-flight decide or resolve update reply before the run closes.
  await condition(allHandlersFinished);
  return state;
}

import type { RoutingVerdictV2, DecisionMoment } from './moments';
import { FOURTH_LAW_THRESHOLD, type EscalationLevel, type RequiredCapability, type RoutingTask } from './decision';
import { ORCH_CORE_DID, type OutboxEvent, type ProvenanceActor, type ProvenanceEntry } from '../provenance/records';
import type { CapabilityMatch } from './reviewer-assignment';
import { humanProvenanceActor, type HumanActor } from '../identity/human-acts';

/**
 * The provenance records and events each step of a routing leaves: what the ledger and the webhooks see.
 * Pure: the workflow supplies the step's facts, including its time.
 */
export type StepEntry = Omit<ProvenanceEntry, 'subject_id' | 'step_id' | 'timestamp' | 'action'> & {
  action: RoutingAction;
};

/** The action of each record a routing leaves: its decision moments, then each step after. */
export type RoutingAction =
  | 'capability_assessed'
  | 'risk_evaluated'
  | 'context_analyzed'
  | 'routing_decided'
  | 'escalation_refused'
  | 'escalated_by_request'
  | 'reassigned_by_request'
  | 'queued_by_request'
  | 'queue_escalated'
  | 'assigned_by_admin'
  | 'assigned_from_queue'
  | 'escalated'
  | 'routing_expired'
  | 'routing_resolved'
  | 'confidence_reported';

export interface RoutingStepRecord {
  step_id: string;
  entry: StepEntry;
  events: OutboxEvent[];
}

const ORCH_CORE: ProvenanceActor = { type: 'orch_core', did: ORCH_CORE_DID };

/** `medical_diagnosis ≥ 0.8, …` for reasoning texts. */
export function describeNeeds(needs: readonly RequiredCapability[]): string {
  return needs.map((c) => `${c.capability_id} ≥ ${c.min_weight}`).join(', ') || 'the needed capabilities';
}

/**
 * The ids an escalation event carries: task_id is the caller's own id of the task (the request's request_id or
 * task_id, or the agent's task_id; null when it gave none), routing_id the routing's.
 */
export function escalationIds(
  routingId: string,
  taskId: string | undefined,
): { task_id: string | null; routing_id: string } {
  return { task_id: taskId ?? null, routing_id: routingId };
}

export interface DecisionFacts {
  routing_id: string;
  /** The caller's own task id, when it gave one. */
  task_id?: string | undefined;
  task: RoutingTask;
  verdict: RoutingVerdictV2;
  /** The first three moments, as decided. */
  moments: DecisionMoment[];
  human: boolean;
  /** Who takes the task; undefined when a human is needed and none qualifies (the routing is queued). */
  assigned_to:
    { type: 'human' | 'ai_agent'; did: string; agent_id?: string; capabilities_matched: CapabilityMatch[] } | undefined;
  /** Supervisor notifications due at the decision's level. */
  notifications: OutboxEvent[];
}

/** The event of a routing entering the queue, or rising a level there. */
export function queuedEvent(
  routingId: string,
  reason: string,
  needs: RequiredCapability[],
  level: EscalationLevel,
): OutboxEvent {
  return {
    event: 'routing.queued',
    data: { routing_id: routingId, reason, required_capabilities: needs, escalation_level: level },
  };
}

/** What the decision's record holds; the compliance tally reads it back by this type. */
function decisionOutput(verdict: RoutingVerdictV2, assigned_to: DecisionFacts['assigned_to']) {
  return {
    decision: verdict.decision,
    reason: verdict.reason,
    escalation_level: verdict.escalation_level,
    risk: verdict.risk,
    safety_analysis: verdict.safety_analysis,
    required_capabilities: verdict.required_capabilities,
    assigned_to: assigned_to ?? null,
    ...(verdict.rule_conflict ? { rule_conflict: verdict.rule_conflict } : {}),
  };
}

export type RoutingDecidedOutput = ReturnType<typeof decisionOutput>;

/** The four decision moments as records: violations with the context analysis, the outcome's events with the decision. */
export function decisionRecords(facts: DecisionFacts): RoutingStepRecord[] {
  const { routing_id, task, verdict, human, assigned_to } = facts;
  const required = verdict.required_capabilities;
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
    output_data: decisionOutput(verdict, assigned_to),
    reasoning:
      assigned_to || !human
        ? `Decided ${verdict.decision} because ${verdict.reason}`
        : `Decided ${verdict.decision} because ${verdict.reason}, but no available reviewer holds ${describeNeeds(required)}: queued until one does`,
    rules_evaluated: verdict.rules_evaluated,
  };
  const decidedEvent: OutboxEvent = {
    event: 'routing.decided',
    data: { routing_id, task_type: task.task_type, decision: verdict.decision, reason: verdict.reason },
  };
  const outcomeEvents: OutboxEvent[] = !assigned_to
    ? [queuedEvent(routing_id, verdict.reason, required, verdict.escalation_level), ...facts.notifications]
    : human
      ? [
          {
            event: 'routing.escalated',
            data: {
              ...escalationIds(routing_id, facts.task_id),
              reason: verdict.reason,
              assigned_human: assigned_to.did,
            },
          },
          {
            event: 'escalation.triggered',
            data: {
              ...escalationIds(routing_id, facts.task_id),
              reason: verdict.reason,
              assigned_human: assigned_to.did,
              escalation_level: verdict.escalation_level,
            },
          },
          ...facts.notifications,
        ]
      : [{ event: 'routing.completed', data: { routing_id, outcome: 'ai_autonomous', decided_for: task.ai_agent_id } }];
  return [...facts.moments, decisionMoment].map(({ step_id, ...moment }) => ({
    step_id,
    entry: { actor: ORCH_CORE, ...moment },
    events:
      step_id === 'context_analysis'
        ? violationEvents
        : step_id === 'routing_decision'
          ? [decidedEvent, ...outcomeEvents]
          : [],
  }));
}

export interface RequestFacts {
  routing_id: string;
  /** The caller's own task id, when it gave one. */
  task_id?: string | undefined;
  actor: ProvenanceActor;
  request: {
    reason: string;
    requested_by: { did: string; principal?: { named_did?: string | undefined } | undefined };
    target_capability?: string | undefined;
    urgency?: string | undefined;
    context?: Record<string, unknown> | undefined;
  };
  /** Whether the routing leaves the agent or the queue for its first human (else a human held it). */
  from_agent: boolean;
}

/** The DID a credential that authenticates no person named as the requester: recorded as named, beside the actor that asked. */
function namedRequester(request: RequestFacts['request']): { requested_by_named?: string } {
  const named = request.requested_by.principal?.named_did;
  return named !== undefined ? { requested_by_named: named } : {};
}

/** An escalation by request that found nobody to take the routing. */
export function escalationRefusedRecord(
  facts: RequestFacts & { attempt: number; needs: RequiredCapability[] },
): RoutingStepRecord {
  return {
    step_id: `escalation_attempt:${facts.attempt}`,
    entry: {
      actor: facts.actor,
      action: 'escalation_refused',
      input_data: {
        reason: facts.request.reason,
        target_capability: facts.request.target_capability ?? null,
        urgency: facts.request.urgency ?? null,
        context: facts.request.context ?? {},
      },
      output_data: { required_capabilities: facts.needs },
      reasoning: `No available reviewer holds ${describeNeeds(facts.needs)}${facts.from_agent ? '' : ' above the current one'}`,
    },
    events: [],
  };
}

/** An escalation by request that handed the routing to a (new) reviewer. */
export function escalationRecord(
  facts: RequestFacts & {
    escalation_id: string;
    from: string;
    to: { did: string; capabilities_matched: CapabilityMatch[] };
    level: EscalationLevel;
    chain_level: number;
    notifications: OutboxEvent[];
  },
): RoutingStepRecord {
  const { routing_id, request, escalation_id, to, level } = facts;
  return {
    step_id: `escalation:${facts.chain_level}`,
    entry: {
      actor: facts.actor,
      action: facts.from_agent ? 'escalated_by_request' : 'reassigned_by_request',
      input_data: {
        escalation_id,
        reason: request.reason,
        from: facts.from,
        target_capability: request.target_capability ?? null,
        urgency: request.urgency ?? null,
        context: request.context ?? {},
        ...namedRequester(request),
      },
      output_data: {
        to_did: to.did,
        escalation_level: level,
        chain_level: facts.chain_level,
        capabilities_matched: to.capabilities_matched,
      },
      reasoning: `${request.requested_by.did} asked for a human: ${request.reason}`,
    },
    events: [
      ...(facts.from_agent
        ? [
            {
              event: 'routing.escalated' as const,
              data: { ...escalationIds(routing_id, facts.task_id), reason: request.reason, assigned_human: to.did },
            },
          ]
        : []),
      {
        event: 'escalation.triggered',
        data: {
          ...escalationIds(routing_id, facts.task_id),
          escalation_id,
          reason: request.reason,
          assigned_human: to.did,
          escalation_level: level,
          requested_by: request.requested_by.did,
        },
      },
      ...facts.notifications,
    ],
  };
}

/** A routing found nobody for an escalation from the agent, or in the queue: it waits there, at `level`. */
export function queuedByRequestRecord(
  facts: RequestFacts & {
    attempt: number;
    needs: RequiredCapability[];
    level: EscalationLevel;
    notifications: OutboxEvent[];
  },
): RoutingStepRecord {
  const { routing_id, request } = facts;
  return {
    step_id: `escalation_attempt:${facts.attempt}`,
    entry: {
      actor: facts.actor,
      action: 'queued_by_request',
      input_data: {
        reason: request.reason,
        target_capability: request.target_capability ?? null,
        urgency: request.urgency ?? null,
        context: request.context ?? {},
        ...namedRequester(request),
      },
      output_data: { required_capabilities: facts.needs, escalation_level: facts.level },
      reasoning: `${request.requested_by.did} asked for a human, but no available reviewer holds ${describeNeeds(facts.needs)}: queued until one does`,
    },
    events: [queuedEvent(routing_id, request.reason, facts.needs, facts.level), ...facts.notifications],
  };
}

/** A queued routing's level timed out with nobody found: it stays queued one level up, and supervisors are told again. */
export function queueRaisedRecord(facts: {
  routing_id: string;
  step: number;
  from_level: EscalationLevel;
  level: EscalationLevel;
  waited_seconds: number;
  needs: RequiredCapability[];
  notifications: OutboxEvent[];
}): RoutingStepRecord {
  return {
    step_id: `queue:${facts.step}`,
    entry: {
      actor: ORCH_CORE,
      action: 'queue_escalated',
      input_data: { from_level: facts.from_level, waited_seconds: facts.waited_seconds },
      output_data: { escalation_level: facts.level, required_capabilities: facts.needs },
      reasoning: `No reviewer holding ${describeNeeds(facts.needs)} became available within ${facts.waited_seconds} s; still queued, now at ${facts.level}`,
    },
    events: [queuedEvent(facts.routing_id, 'no_qualified_reviewer', facts.needs, facts.level), ...facts.notifications],
  };
}

/** A queued routing handed to a reviewer: one became available, or an admin chose one. */
export function queueAssignmentRecord(facts: {
  routing_id: string;
  task_id?: string | undefined;
  actor: ProvenanceActor;
  by_admin: boolean;
  escalation_id: string;
  to: { did: string; capabilities_matched: CapabilityMatch[] };
  qualified: boolean;
  level: EscalationLevel;
  chain_level: number;
  reason: string | undefined;
  notifications: OutboxEvent[];
}): RoutingStepRecord {
  const { routing_id, to, escalation_id, level } = facts;
  const why = facts.by_admin ? 'assigned_by_admin' : 'reviewer_available';
  return {
    step_id: `escalation:${facts.chain_level}`,
    entry: {
      actor: facts.actor,
      action: facts.by_admin ? 'assigned_by_admin' : 'assigned_from_queue',
      input_data: { escalation_id, reason: facts.reason ?? null },
      output_data: {
        to_did: to.did,
        escalation_level: level,
        chain_level: facts.chain_level,
        capabilities_matched: to.capabilities_matched,
        qualified: facts.qualified,
      },
      reasoning: facts.by_admin
        ? `${facts.actor.did ?? 'An admin'} assigned ${to.did}${facts.qualified ? '' : ', who does not hold every needed capability,'} to the queued routing${facts.reason ? `: ${facts.reason}` : ''}`
        : `${to.did} is available and holds what the queued routing needs`,
    },
    events: [
      {
        event: 'routing.escalated',
        data: { ...escalationIds(routing_id, facts.task_id), reason: why, assigned_human: to.did },
      },
      {
        event: 'escalation.triggered',
        data: {
          ...escalationIds(routing_id, facts.task_id),
          escalation_id,
          reason: why,
          assigned_human: to.did,
          escalation_level: level,
        },
      },
      ...facts.notifications,
    ],
  };
}

/** A move up the chain after the holder's level timed out. */
export function chainEscalationRecord(facts: {
  routing_id: string;
  task_id?: string | undefined;
  from_did: string;
  timed_out_after_seconds: number;
  to_did: string;
  level: EscalationLevel;
  chain_level: number;
  notifications: OutboxEvent[];
}): RoutingStepRecord {
  return {
    step_id: `escalation:${facts.chain_level}`,
    entry: {
      actor: ORCH_CORE,
      action: 'escalated',
      input_data: { from_did: facts.from_did, timed_out_after_seconds: facts.timed_out_after_seconds },
      output_data: { to_did: facts.to_did, escalation_level: facts.level, chain_level: facts.chain_level },
      reasoning: `${facts.from_did} did not resolve in time; moved up the chain`,
    },
    events: [
      {
        event: 'escalation.triggered',
        data: {
          ...escalationIds(facts.routing_id, facts.task_id),
          reason: 'reviewer_timeout',
          assigned_human: facts.to_did,
          escalation_level: facts.level,
        },
      },
      ...facts.notifications,
    ],
  };
}

/** The last level of the chain timed out with nobody above it; or, queued, the urgent level did with nobody found. */
export function expiryRecord(facts: {
  routing_id: string;
  level: EscalationLevel;
  chain_length: number;
  timed_out_after_seconds: number;
  queued?: boolean;
}): RoutingStepRecord {
  return {
    step_id: 'expiry',
    entry: {
      actor: ORCH_CORE,
      action: 'routing_expired',
      input_data: { escalation_level: facts.level, chain_length: facts.chain_length },
      output_data: { status: 'expired' },
      reasoning: facts.queued
        ? `No qualified reviewer became available within ${facts.timed_out_after_seconds} s at the ${facts.level} level`
        : `No resolution within ${facts.timed_out_after_seconds} s at the last level of the chain`,
    },
    events: [
      {
        event: 'audit.critical',
        data: {
          routing_id: facts.routing_id,
          reason: facts.queued ? 'no_qualified_reviewer' : 'escalation_chain_exhausted',
        },
      },
    ],
  };
}

/** A reviewer on the chain resolved the routing. */
export function resolutionRecord(facts: {
  routing_id: string;
  ai_recommendation: string | undefined;
  resolution: {
    reviewer_did: string;
    outcome: string;
    comment?: string | undefined;
    modified_recommendation?: string | undefined;
    actor?: HumanActor | undefined;
  };
}): RoutingStepRecord {
  const { routing_id, resolution } = facts;
  return {
    step_id: 'resolution',
    entry: {
      // The reviewer's DID stays the actor's: accountability and audit name the reviewer on the chain.
      actor: resolution.actor
        ? { ...humanProvenanceActor(resolution.actor), did: resolution.reviewer_did }
        : { type: 'human', did: resolution.reviewer_did },
      action: 'routing_resolved',
      input_data: { ai_recommendation: facts.ai_recommendation ?? null },
      output_data: { outcome: resolution.outcome, modified_recommendation: resolution.modified_recommendation ?? null },
      reasoning: resolution.comment ?? `Reviewer ${resolution.outcome} the routing`,
    },
    events: [
      {
        event: 'routing.completed',
        data: { routing_id, outcome: resolution.outcome, resolved_by: resolution.reviewer_did },
      },
    ],
  };
}

/** The agent reported its confidence; below the Fourth Law's threshold a human takes over. */
export function confidenceRecord(facts: {
  report: number;
  actor: ProvenanceActor;
  confidence: number;
  proceed_autonomously: boolean;
  reason: string | undefined;
  held_by: 'human' | 'ai_agent' | 'queue';
}): RoutingStepRecord {
  const below = facts.confidence < FOURTH_LAW_THRESHOLD;
  return {
    step_id: `confidence:${facts.report}`,
    entry: {
      actor: facts.actor,
      action: 'confidence_reported',
      input_data: {
        confidence: facts.confidence,
        proceed_autonomously: facts.proceed_autonomously,
        reason: facts.reason ?? null,
      },
      output_data: { fourth_law_triggered: below, held_by: facts.held_by },
      reasoning: below
        ? `Confidence ${facts.confidence} is below ${FOURTH_LAW_THRESHOLD}: a human takes over`
        : `Confidence ${facts.confidence} meets ${FOURTH_LAW_THRESHOLD}`,
    },
    events: [],
  };
}

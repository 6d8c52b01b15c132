/**
 * The records of what callers ask of a running routing: an escalation (to a reviewer, or into the queue, or
 * refused), the agent's confidence, a reviewer's resolution.
 */
import { FOURTH_LAW_THRESHOLD, type EscalationLevel, type RequiredCapability } from './decision';
import type { OutboxEvent, ProvenanceActor } from '../provenance/records';
import { describeAssignee, type CapabilityMatch } from './reviewer-assignment';
import { humanProvenanceActor, type HumanActor } from '../identity/human-acts';
import {
  coveringFor,
  describeNeeds,
  escalationTriggeredEvent,
  queuedEvent,
  routingEscalatedEvent,
  type RoutingStepRecord,
} from './steps';

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

/** What a request for a human asked, as the records of one that found nobody keep it. */
function requestInput(request: RequestFacts['request']) {
  return {
    reason: request.reason,
    target_capability: request.target_capability ?? null,
    urgency: request.urgency ?? null,
    context: request.context ?? {},
  };
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
      input_data: requestInput(facts.request),
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
    to: { did: string; covering_for?: string | undefined; capabilities_matched: CapabilityMatch[] };
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
        ...coveringFor(to),
        escalation_level: level,
        chain_level: facts.chain_level,
        capabilities_matched: to.capabilities_matched,
      },
      reasoning:
        to.covering_for !== undefined
          ? `${request.requested_by.did} asked for a human: ${request.reason}; assigned to ${describeAssignee(to)}`
          : `${request.requested_by.did} asked for a human: ${request.reason}`,
    },
    events: [
      ...(facts.from_agent
        ? [routingEscalatedEvent(routing_id, facts.task_id, request.reason, to.did, to.covering_for)]
        : []),
      escalationTriggeredEvent(routing_id, facts.task_id, {
        escalation_id,
        reason: request.reason,
        assigned_human: to.did,
        ...coveringFor(to),
        escalation_level: level,
        requested_by: request.requested_by.did,
      }),
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
      input_data: { ...requestInput(request), ...namedRequester(request) },
      output_data: { required_capabilities: facts.needs, escalation_level: facts.level },
      reasoning: `${request.requested_by.did} asked for a human, but no available reviewer holds ${describeNeeds(facts.needs)}: queued until one does`,
    },
    events: [queuedEvent(routing_id, request.reason, facts.needs, facts.level), ...facts.notifications],
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

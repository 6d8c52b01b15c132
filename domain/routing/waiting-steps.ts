/**
 * The records of a routing waiting for a human as time passes or reviewers come: the queue's levels, an
 * assignment from the queue, moves up the escalation chain, and expiry.
 */
import type { EscalationLevel, RequiredCapability } from './decision';
import type { OutboxEvent, ProvenanceActor } from '../provenance/records';
import { describeAssignee, type CapabilityMatch } from './reviewer-assignment';
import {
  coveringFor,
  describeNeeds,
  escalationTriggeredEvent,
  ORCH_CORE,
  queuedEvent,
  routingEscalatedEvent,
  type RoutingStepRecord,
} from './steps';

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
  to: {
    did: string;
    covering_for?: string | undefined;
    capabilities_matched: CapabilityMatch[];
    capabilities_relaxed?: string[] | undefined;
  };
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
        ...coveringFor(to),
        escalation_level: level,
        chain_level: facts.chain_level,
        capabilities_matched: to.capabilities_matched,
        ...(to.capabilities_relaxed ? { capabilities_relaxed: to.capabilities_relaxed } : {}),
        qualified: facts.qualified,
      },
      reasoning: facts.by_admin
        ? `${facts.actor.did ?? 'An admin'} assigned ${to.did}${facts.qualified ? '' : ', who does not hold every needed capability,'} to the queued routing${facts.reason ? `: ${facts.reason}` : ''}`
        : to.capabilities_relaxed
          ? `${describeAssignee(to)} is available and holds what the queued routing needs once ${to.capabilities_relaxed.join(', ')} was relaxed after its stated wait`
          : `${describeAssignee(to)} is available and holds what the queued routing needs`,
    },
    events: [
      routingEscalatedEvent(routing_id, facts.task_id, why, to.did, to.covering_for),
      escalationTriggeredEvent(routing_id, facts.task_id, {
        escalation_id,
        reason: why,
        assigned_human: to.did,
        ...coveringFor(to),
        escalation_level: level,
      }),
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
  /** The reviewer up the chain whom to_did covers for. */
  covering_for?: string | undefined;
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
      output_data: {
        to_did: facts.to_did,
        ...coveringFor(facts),
        escalation_level: facts.level,
        chain_level: facts.chain_level,
      },
      reasoning:
        facts.covering_for !== undefined
          ? `${facts.from_did} did not resolve in time; moved up the chain to ${describeAssignee({ did: facts.to_did, covering_for: facts.covering_for })}`
          : `${facts.from_did} did not resolve in time; moved up the chain`,
    },
    events: [
      escalationTriggeredEvent(facts.routing_id, facts.task_id, {
        reason: 'reviewer_timeout',
        assigned_human: facts.to_did,
        ...coveringFor(facts),
        escalation_level: facts.level,
      }),
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

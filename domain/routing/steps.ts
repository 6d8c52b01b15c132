import type { RoutingAction, RoutingVerdictV2, DecisionMoment } from './moment-types';
import type { EscalationLevel, RequiredCapability, RoutingTask } from './decision';
import { ORCH_CORE_DID, type OutboxEvent, type ProvenanceActor, type ProvenanceEntry } from '../provenance/records';
import { describeAssignee, type CapabilityMatch } from './reviewer-assignment';

/**
 * The provenance records and events each step of a routing leaves: what the ledger and the webhooks see.
 * Pure: the workflow supplies the step's facts, including its time.
 */
export type StepEntry = Omit<ProvenanceEntry, 'subject_id' | 'step_id' | 'timestamp' | 'action'> & {
  action: RoutingAction;
};

export type { RoutingAction };

export interface RoutingStepRecord {
  step_id: string;
  entry: StepEntry;
  events: OutboxEvent[];
}

export const ORCH_CORE: ProvenanceActor = { type: 'orch_core', did: ORCH_CORE_DID };

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

/** The reviewer a human assignee covers for, as events and records carry it: only when there is one. */
export const coveringFor = (to: { covering_for?: string | undefined }): { covering_for?: string } =>
  to.covering_for !== undefined ? { covering_for: to.covering_for } : {};

/** A routing handed to a human (routing.escalated); a colleague covering for the reviewer chosen says for whom. */
export function routingEscalatedEvent(
  routingId: string,
  taskId: string | undefined,
  reason: string,
  assignedHuman: string,
  covering?: string,
): OutboxEvent {
  return {
    event: 'routing.escalated',
    data: {
      ...escalationIds(routingId, taskId),
      reason,
      assigned_human: assignedHuman,
      ...coveringFor({ covering_for: covering }),
    },
  };
}

/** Each escalation to a human, at its level (escalation.triggered); one by request names its id and requester. */
export function escalationTriggeredEvent(
  routingId: string,
  taskId: string | undefined,
  escalation: {
    escalation_id?: string;
    reason: string;
    assigned_human: string;
    covering_for?: string | undefined;
    escalation_level: EscalationLevel;
    requested_by?: string;
  },
): OutboxEvent {
  const { escalation_id, requested_by } = escalation;
  return {
    event: 'escalation.triggered',
    data: {
      ...escalationIds(routingId, taskId),
      ...(escalation_id !== undefined ? { escalation_id } : {}),
      reason: escalation.reason,
      assigned_human: escalation.assigned_human,
      ...coveringFor(escalation),
      escalation_level: escalation.escalation_level,
      ...(requested_by !== undefined ? { requested_by } : {}),
    },
  };
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
    | {
        type: 'human' | 'ai_agent';
        did: string;
        agent_id?: string;
        covering_for?: string;
        capabilities_matched: CapabilityMatch[];
      }
    | undefined;
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
        ? `Decided ${verdict.decision} because ${verdict.reason}${assigned_to?.covering_for !== undefined ? `; assigned to ${describeAssignee(assigned_to)}` : ''}`
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
          routingEscalatedEvent(routing_id, facts.task_id, verdict.reason, assigned_to.did, assigned_to.covering_for),
          escalationTriggeredEvent(routing_id, facts.task_id, {
            reason: verdict.reason,
            assigned_human: assigned_to.did,
            ...coveringFor(assigned_to),
            escalation_level: verdict.escalation_level,
          }),
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

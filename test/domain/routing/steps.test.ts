import { decideRoutingMoments } from '../../../domain/routing/moments';
import type { RoutingTask } from '../../../domain/routing/decision';
import { DEFAULT_RISK_THRESHOLDS } from '../../../domain/routing/risk';
import {
  confidenceRecord,
  escalationRecord,
  escalationRefusedRecord,
  queuedByRequestRecord,
  resolutionRecord,
} from '../../../domain/routing/request-steps';
import { decisionRecords, describeNeeds, type DecisionFacts } from '../../../domain/routing/steps';
import {
  chainEscalationRecord,
  expiryRecord,
  queueAssignmentRecord,
  queueRaisedRecord,
} from '../../../domain/routing/waiting-steps';

const task = (changes: Partial<RoutingTask> = {}): RoutingTask => ({
  task_type: 'diagnosis',
  context: {},
  ai_agent_id: 'urn:acme:agent:dx:1',
  ai_confidence: 0.9,
  required_capabilities: [{ capability_id: 'diagnosis', min_weight: 0.8 }],
  safety_requirements: {},
  escalation_conditions: {},
  ...changes,
});

function decision(changes: Partial<RoutingTask>, assigned: 'human' | 'agent' | 'nobody'): DecisionFacts {
  const routed = task(changes);
  const { moments, verdict } = decideRoutingMoments({
    task: routed,
    agent: null,
    domain: 'general',
    safety: { domain: 'general', boundaries: [], risk_thresholds: DEFAULT_RISK_THRESHOLDS, task_types: [] },
    rules: [],
    rule_set: { version: 1, enabled: 0 },
  });
  const assigned_to =
    assigned === 'human'
      ? { type: 'human' as const, did: 'did:x:first', capabilities_matched: [] }
      : assigned === 'agent'
        ? { type: 'ai_agent' as const, did: 'did:x:agent', agent_id: routed.ai_agent_id, capabilities_matched: [] }
        : undefined;
  return {
    routing_id: 'rt_1',
    task: routed,
    verdict,
    moments,
    human: assigned !== 'agent',
    assigned_to,
    notifications: [{ event: 'escalation.supervisor_notified', data: { rule_id: 'r1' } }],
  };
}

describe('decisionRecords', () => {
  it.each<[string, DecisionFacts, string[]]>([
    ['announces an autonomous decision as completed', decision({}, 'agent'), ['routing.decided', 'routing.completed']],
    [
      'announces a human decision as escalated, with the supervisors told',
      decision({ ai_confidence: 0.5 }, 'human'),
      ['routing.decided', 'routing.escalated', 'escalation.triggered', 'escalation.supervisor_notified'],
    ],
    [
      'announces a queued routing to the supervisors when nobody qualified',
      decision({ ai_confidence: 0.5 }, 'nobody'),
      ['routing.decided', 'routing.queued', 'escalation.supervisor_notified'],
    ],
  ])('%s', (_name, facts, events) => {
    const records = decisionRecords(facts);
    expect(records.map((record) => record.step_id)).toEqual([
      'capability_assessment',
      'risk_evaluation',
      'context_analysis',
      'routing_decision',
    ]);
    expect(records[3]!.events.map((event) => event.event)).toEqual(events);
    expect(records.every((record) => record.entry.actor.type === 'orch_core')).toBe(true);
  });

  it.each<[string, 'human' | 'nobody', string]>([
    ['explains the decision', 'human', 'Decided escalate_to_human because ai_confidence_below_threshold'],
    [
      'says who was missing when nobody qualified, and that it waits',
      'nobody',
      'Decided escalate_to_human because ai_confidence_below_threshold, but no available reviewer holds diagnosis ≥ 0.8: queued until one does',
    ],
  ])('%s', (_name, assigned, reasoning) => {
    expect(decisionRecords(decision({ ai_confidence: 0.5 }, assigned))[3]!.entry.reasoning).toBe(reasoning);
  });
});

const request = { reason: 'second opinion', requested_by: { did: 'did:x:lead' } };
const actor = { type: 'human' as const, did: 'did:x:lead' };

describe('the records of a running routing', () => {
  it.each([
    [
      'an escalation from the agent announces the routing escalated, then triggered',
      escalationRecord({
        routing_id: 'rt_1',
        actor,
        request,
        from_agent: true,
        escalation_id: 'esc_1',
        from: 'urn:a',
        to: { did: 'did:x:first', capabilities_matched: [] },
        level: 'high',
        chain_level: 1,
        notifications: [],
      }),
      'escalation:1',
      ['routing.escalated', 'escalation.triggered'],
    ],
    [
      'a reassignment by hand announces only the trigger and the supervisors told',
      escalationRecord({
        routing_id: 'rt_1',
        actor,
        request,
        from_agent: false,
        escalation_id: 'esc_2',
        from: 'did:x:first',
        to: { did: 'did:x:second', capabilities_matched: [] },
        level: 'high',
        chain_level: 2,
        notifications: [{ event: 'escalation.supervisor_notified', data: {} }],
      }),
      'escalation:2',
      ['escalation.triggered', 'escalation.supervisor_notified'],
    ],
    [
      'a refused escalation announces nothing',
      escalationRefusedRecord({ routing_id: 'rt_1', actor, request, from_agent: false, attempt: 3, needs: [] }),
      'escalation_attempt:3',
      [],
    ],
    [
      'a move up the chain announces a reviewer timeout',
      chainEscalationRecord({
        routing_id: 'rt_1',
        from_did: 'a',
        timed_out_after_seconds: 60,
        to_did: 'b',
        level: 'medium',
        chain_level: 2,
        notifications: [],
      }),
      'escalation:2',
      ['escalation.triggered'],
    ],
    [
      'an expiry is an audit.critical',
      expiryRecord({ routing_id: 'rt_1', level: 'urgent', chain_length: 3, timed_out_after_seconds: 60 }),
      'expiry',
      ['audit.critical'],
    ],
    [
      'a queued routing that found nobody for an escalation announces the queue',
      queuedByRequestRecord({
        routing_id: 'rt_1',
        actor,
        request,
        from_agent: true,
        attempt: 1,
        needs: [],
        level: 'high',
        notifications: [],
      }),
      'escalation_attempt:1',
      ['routing.queued'],
    ],
    [
      'a queued routing rising a level announces the queue again, with the supervisors told',
      queueRaisedRecord({
        routing_id: 'rt_1',
        step: 2,
        from_level: 'low',
        level: 'medium',
        waited_seconds: 60,
        needs: [],
        notifications: [{ event: 'escalation.supervisor_notified', data: {} }],
      }),
      'queue:2',
      ['routing.queued', 'escalation.supervisor_notified'],
    ],
    [
      'a queued routing assigned announces the routing escalated, then triggered',
      queueAssignmentRecord({
        routing_id: 'rt_1',
        actor,
        by_admin: true,
        escalation_id: 'esc_3',
        to: { did: 'did:x:lead', capabilities_matched: [] },
        qualified: false,
        level: 'low',
        chain_level: 1,
        reason: undefined,
        notifications: [],
      }),
      'escalation:1',
      ['routing.escalated', 'escalation.triggered'],
    ],
    [
      'a resolution completes the routing',
      resolutionRecord({
        routing_id: 'rt_1',
        ai_recommendation: undefined,
        resolution: { reviewer_did: 'did:x:first', outcome: 'approved' },
      }),
      'resolution',
      ['routing.completed'],
    ],
    [
      'a confidence report announces nothing',
      confidenceRecord({
        report: 2,
        actor,
        confidence: 0.9,
        proceed_autonomously: true,
        reason: undefined,
        held_by: 'ai_agent',
      }),
      'confidence:2',
      [],
    ],
  ])('%s', (_name, record, stepId, events) => {
    expect(record.step_id).toBe(stepId);
    expect(record.events.map((event) => event.event)).toEqual(events);
  });

  it.each([
    ['says a human takes over below 0.70', 0.69, true, 'Confidence 0.69 is below 0.7: a human takes over'],
    ['says confidence meets the threshold at 0.70', 0.7, false, 'Confidence 0.7 meets 0.7'],
  ])('a confidence report %s', (_name, confidence, below, reasoning) => {
    const record = confidenceRecord({
      report: 1,
      actor,
      confidence,
      proceed_autonomously: true,
      reason: undefined,
      held_by: 'ai_agent',
    });
    expect(record.entry.output_data.fourth_law_triggered).toBe(below);
    expect(record.entry.reasoning).toBe(reasoning);
  });

  it.each([
    [
      'names each capability with its weight',
      [
        { capability_id: 'a', min_weight: 0.5 },
        { capability_id: 'b', min_weight: 0 },
      ],
      'a ≥ 0.5, b ≥ 0',
    ],
    ['falls back to a phrase without capabilities', [], 'the needed capabilities'],
  ])('describeNeeds %s', (_name, needs, text) => {
    expect(describeNeeds(needs)).toBe(text);
  });
});

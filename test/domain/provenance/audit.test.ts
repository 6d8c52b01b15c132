import { actionsOfEventType, auditDetails, auditEventType } from '../../../domain/provenance/audit';
import type { ProvenanceEntry } from '../../../domain/provenance/records';

const entry = (
  action: string,
  output_data: Record<string, unknown>,
  extra: Partial<ProvenanceEntry> = {},
): ProvenanceEntry => ({
  subject_id: 'rt_1',
  step_id: action,
  timestamp: '2026-07-01T00:00:00.000Z',
  actor: { type: 'orch_core' },
  action,
  input_data: {},
  output_data,
  reasoning: `did ${action}`,
  ...extra,
});

describe('audit event types', () => {
  it.each([
    ['capability_assessed', 'capability_assessment'],
    ['risk_evaluated', 'risk_evaluation'],
    ['context_analyzed', 'context_analysis'],
    ['routing_decided', 'routing_decision'],
    ['escalated', 'escalation_triggered'],
    ['escalated_by_request', 'escalation_triggered'],
    ['reassigned_by_request', 'escalation_triggered'],
    ['routing_resolved', 'routing_resolution'],
    ['routing_expired', 'routing_expired'],
    ['agent_registered', 'agent_registered'],
  ])('names a %s record %s', (action, type) => {
    expect(auditEventType(action)).toBe(type);
  });

  it.each([
    // A record whose action is literally the type's name has that type too.
    ['routing_decision', ['routing_decided', 'routing_decision']],
    ['escalation_triggered', ['escalated', 'escalated_by_request', 'reassigned_by_request', 'escalation_triggered']],
    ['risk_evaluation', ['risk_evaluated', 'risk_evaluation']],
    ['routing_expired', ['routing_expired']],
    ['agent_registered', ['agent_registered']],
    // An action that has a name of its own is not its own event type.
    ['escalated', []],
  ])('filters event type %s by the actions %j', (type, actions) => {
    expect(actionsOfEventType(type)).toEqual(actions);
  });
});

describe('audit details', () => {
  it('reads a routing decision’s rule, risk and assignee', () => {
    const details = auditDetails(
      entry('routing_decided', {
        reason: 'ai_confidence_below_threshold',
        risk: { level: 'medium', factors: [] },
        assigned_to: { type: 'human', did: 'did:x:ada' },
      }),
      'low',
    );
    expect(details).toEqual({
      rule_triggered: 'ai_confidence_below_threshold',
      risk_level: 'medium',
      assigned_to: 'did:x:ada',
      action: 'routing_decided',
      summary: 'did routing_decided',
    });
  });

  it('reads an escalation’s new reviewer and takes the routing’s risk', () => {
    expect(auditDetails(entry('escalated', { to_did: 'did:x:grace', escalation_level: 'high' }), 'high')).toMatchObject(
      {
        rule_triggered: 'reviewer_timeout',
        risk_level: 'high',
        assigned_to: 'did:x:grace',
      },
    );
  });

  it.each(['escalated_by_request', 'reassigned_by_request'])('names a %s record’s cause and new reviewer', (action) => {
    expect(auditDetails(entry(action, { to_did: 'did:x:alan', escalation_level: 'urgent' }), 'medium')).toMatchObject({
      rule_triggered: 'escalation_requested',
      risk_level: 'medium',
      assigned_to: 'did:x:alan',
    });
  });

  it('names the human who resolved a routing', () => {
    expect(
      auditDetails(
        entry('routing_resolved', { outcome: 'approved' }, { actor: { type: 'human', did: 'did:x:ada' } }),
        null,
      ),
    ).toMatchObject({
      rule_triggered: null,
      assigned_to: 'did:x:ada',
    });
  });

  it('falls back to the first triggered rule of a record from another workstream', () => {
    const details = auditDetails(
      entry(
        'safety_checked',
        { allowed: false },
        {
          rules_evaluated: [
            { rule_id: 'a', triggered: false, reason: 'fine' },
            { rule_id: 'b', triggered: true, reason: 'amount_exceeds_ai_authority' },
          ],
        },
      ),
      null,
    );
    expect(details).toMatchObject({
      rule_triggered: 'amount_exceeds_ai_authority',
      risk_level: null,
      assigned_to: null,
    });
  });
});

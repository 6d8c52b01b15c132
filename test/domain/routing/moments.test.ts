import type { AgentProfile } from '../../../domain/agents/agents';
import type { EscalationRule } from '../../../domain/rules/escalation-rules';
import type { RoutingTask } from '../../../domain/routing/decision';
import { decideRoutingMoments, type RoutingInputs } from '../../../domain/routing/moments';
import { DEFAULT_RISK_THRESHOLDS } from '../../../domain/routing/risk';
import type { DomainSafetyConfig } from '../../../domain/safety/boundaries';

const general: DomainSafetyConfig = {
  domain: 'general',
  task_types: [],
  risk_thresholds: DEFAULT_RISK_THRESHOLDS,
  boundaries: [
    {
      boundary_id: 'irreversible',
      type: 'safety_boundary',
      description: 'no irreversible actions alone',
      enforcement: 'strict',
      severity: 'high',
      exceptions: null,
      escalation_required: true,
      actions: [],
      conditions: [{ condition_type: 'context.irreversible', operator: '==', value: true }],
    },
    {
      boundary_id: 'ticket',
      type: 'context_boundary',
      description: 'a ticket reference',
      enforcement: 'advisory',
      severity: 'low',
      exceptions: null,
      escalation_required: true,
      actions: ['refund'],
      required_context: ['ticket_id'],
    },
  ],
};

const task = (changes: Partial<RoutingTask> = {}): RoutingTask => ({
  task_type: 'summarize',
  context: {},
  ai_agent_id: 'urn:acme:agent:sum:1',
  ai_confidence: 0.9,
  required_capabilities: [],
  safety_requirements: {},
  escalation_conditions: {},
  ...changes,
});

const inputs = (changes: Partial<RoutingInputs> = {}): RoutingInputs => ({
  task: task(),
  agent: null,
  domain: 'general',
  safety: general,
  rules: [],
  rule_set: { version: 3, enabled: 0 },
  ...changes,
});

const rule = (
  rule_id: string,
  priority: EscalationRule['priority'],
  capability: string,
  urgency: 'low' | 'medium' | 'high' | 'urgent' = 'medium',
): EscalationRule => ({
  rule_id,
  rule_name: rule_id,
  priority,
  conditions: [{ condition_type: 'ai_confidence', operator: '<', value: 0.95 }],
  actions: [
    { action: 'escalate_to_human', target_capability: capability, min_weight: 0.7, urgency },
    { action: 'notify_supervisor', notification_threshold: 'medium' },
  ],
});

const agent = (
  constraints: AgentProfile['safety_constraints'],
  capabilities: AgentProfile['capabilities'] = [],
): AgentProfile => ({
  agent_id: 'urn:acme:agent:sum:1',
  status: 'active',
  capabilities,
  safety_constraints: constraints,
});

describe('decideRoutingMoments', () => {
  it.each<[string, Partial<RoutingInputs>, { decision: string; reason: string; escalation_level: string }]>([
    [
      'lets a confident agent act alone',
      {},
      { decision: 'ai_autonomous', reason: 'within_ai_authority', escalation_level: 'none' },
    ],
    [
      'applies the Fourth Law below 0.70',
      { task: task({ ai_confidence: 0.69 }) },
      { decision: 'escalate_to_human', reason: 'ai_confidence_below_threshold', escalation_level: 'low' },
    ],
    [
      'names life safety first, urgently',
      { task: task({ ai_confidence: 0.1, escalation_conditions: { life_safety_flag: true } }) },
      { decision: 'escalate_to_human', reason: 'life_safety_flag', escalation_level: 'urgent' },
    ],
    [
      'escalates what the agent says it cannot handle',
      { task: task({ agent_assessment: { can_handle: false } }) },
      { decision: 'escalate_to_human', reason: 'ai_cannot_handle', escalation_level: 'low' },
    ],
    [
      'escalates on the agent’s own request',
      { task: task({ agent_assessment: { escalation_recommended: true } }) },
      { decision: 'escalate_to_human', reason: 'agent_requested_escalation', escalation_level: 'low' },
    ],
    [
      'escalates across a strict domain boundary',
      { task: task({ context: { irreversible: true } }) },
      { decision: 'escalate_to_human', reason: 'safety_boundary_crossed', escalation_level: 'high' },
    ],
    [
      'asks for confirmation on an advisory boundary',
      { task: task({ task_type: 'refund' }) },
      { decision: 'hybrid_collaboration', reason: 'safety_boundary_advisory', escalation_level: 'low' },
    ],
    [
      'collaborates at high risk',
      { task: task({ context: { amount: 20_000 } }) },
      { decision: 'hybrid_collaboration', reason: 'high_risk_requires_human_confirmation', escalation_level: 'high' },
    ],
    [
      'sends human_required mode to a human',
      { task: task({ routing_mode: 'human_required' }) },
      { decision: 'escalate_to_human', reason: 'human_required_mode', escalation_level: 'low' },
    ],
    [
      'makes hybrid mode hybrid',
      { task: task({ routing_mode: 'hybrid' }) },
      { decision: 'hybrid_collaboration', reason: 'hybrid_mode', escalation_level: 'low' },
    ],
    [
      'keeps escalation mode autonomous when nothing triggers',
      { task: task({ routing_mode: 'escalation' }) },
      { decision: 'ai_autonomous', reason: 'within_ai_authority', escalation_level: 'none' },
    ],
    [
      'applies an agent that cannot prescribe',
      { task: task({ task_type: 'prescription' }), agent: agent({ cannot_prescribe: true }) },
      { decision: 'escalate_to_human', reason: 'agent_cannot_prescribe', escalation_level: 'low' },
    ],
    [
      'applies an agent’s risk ceiling',
      { task: task({ context: { amount: 5_000 } }), agent: agent({ max_risk_level: 'low' }) },
      { decision: 'escalate_to_human', reason: 'amount_exceeds_ai_authority', escalation_level: 'medium' },
    ],
    [
      'makes an agent that needs confirmation hybrid',
      { agent: agent({ requires_human_confirmation: true }) },
      { decision: 'hybrid_collaboration', reason: 'agent_requires_human_confirmation', escalation_level: 'low' },
    ],
    [
      'escalates on a capability a registered agent lacks',
      {
        task: task({ required_capabilities: [{ capability_id: 'legal_review', min_weight: 0.5 }] }),
        agent: agent({}, [{ capability_id: 'summaries', confidence_level: 0.9 }]),
      },
      { decision: 'escalate_to_human', reason: 'ai_capability_gap', escalation_level: 'low' },
    ],
    [
      'escalates by a rule at its urgency',
      { rules: [rule('r1', 'high', 'legal_review', 'high')] },
      { decision: 'escalate_to_human', reason: 'escalation_rule_triggered', escalation_level: 'high' },
    ],
    [
      'fails safe to a human when rules conflict',
      { rules: [rule('r1', 'high', 'legal_review', 'low'), rule('r2', 'high', 'finance', 'urgent')] },
      { decision: 'escalate_to_human', reason: 'rule_conflict', escalation_level: 'urgent' },
    ],
    [
      'takes the highest level any trigger asks for',
      { task: task({ ai_confidence: 0.5 }), rules: [rule('r1', 'high', 'legal_review', 'urgent')] },
      { decision: 'escalate_to_human', reason: 'ai_confidence_below_threshold', escalation_level: 'urgent' },
    ],
  ])('%s', (_name, changes, expected) => {
    expect(decideRoutingMoments(inputs(changes)).verdict).toMatchObject(expected);
  });

  it('records the four moments’ first three with the rules in scope and the rule set version; the verdict repeats only the rules that triggered', () => {
    const { moments, verdict } = decideRoutingMoments(
      inputs({
        task: task({ ai_confidence: 0.5 }),
        rules: [rule('r1', 'high', 'legal_review')],
        rule_set: { version: 7, enabled: 40 },
      }),
    );
    expect(moments.map((m) => m.step_id)).toEqual(['capability_assessment', 'risk_evaluation', 'context_analysis']);
    expect(moments[2]!.input_data).toMatchObject({ rule_set: { version: 7, enabled_rules: 40, rules_in_scope: 1 } });
    expect(moments[2]!.rules_evaluated).toEqual([
      { rule_id: 'r1', triggered: true, reason: 'ai_confidence 0.5 < 0.95' },
    ]);
    expect(verdict.rules_evaluated).toEqual(
      expect.arrayContaining([
        { rule_id: 'fourth_law', triggered: true, reason: 'ai_confidence_below_threshold' },
        { rule_id: 'r1', triggered: true, reason: 'ai_confidence 0.5 < 0.95' },
      ]),
    );
    expect(verdict.fourth_law_triggered).toBe(true);
    expect(verdict.rules_triggered).toEqual(['r1']);
    const quiet = decideRoutingMoments(
      inputs({ task: task({ ai_confidence: 0.99 }), rules: [rule('r1', 'high', 'legal_review')] }),
    );
    expect(quiet.moments[2]!.rules_evaluated).toEqual([
      { rule_id: 'r1', triggered: false, reason: 'ai_confidence 0.99 < 0.95 does not hold' },
    ]);
    expect(quiet.verdict.rules_evaluated.map((e) => e.rule_id)).not.toContain('r1');
  });

  it('adds the deciding rule’s capability to what the human must hold, and due notifications', () => {
    const { verdict } = decideRoutingMoments(
      inputs({
        task: task({ required_capabilities: [{ capability_id: 'legal_review', min_weight: 0.9 }] }),
        rules: [rule('r1', 'high', 'legal_review', 'high')],
      }),
    );
    expect(verdict.required_capabilities).toEqual([{ capability_id: 'legal_review', min_weight: 0.9 }]);
    expect(verdict.rule_triggered).toBe('r1');
    expect(verdict.notifications).toEqual([{ rule_id: 'r1', notification_threshold: 'medium' }]);
  });

  it('keeps the task’s own capabilities on a conflict and reports the rules', () => {
    const { verdict } = decideRoutingMoments(
      inputs({
        task: task({ required_capabilities: [{ capability_id: 'general_review', min_weight: 0.5 }] }),
        rules: [rule('r1', 'high', 'legal_review'), rule('r2', 'high', 'finance')],
      }),
    );
    expect(verdict.required_capabilities).toEqual([{ capability_id: 'general_review', min_weight: 0.5 }]);
    expect(verdict.rule_conflict).toEqual({ rule_ids: ['r1', 'r2'], target_capabilities: ['legal_review', 'finance'] });
  });

  it('counts the boundaries it checked and whether all were met', () => {
    const clean = decideRoutingMoments(inputs()).verdict.safety_analysis;
    expect(clean).toEqual({
      risk_level: 'low',
      safety_boundaries_checked: 7,
      ethical_constraints_checked: 3,
      all_constraints_met: true,
    });
    expect(
      decideRoutingMoments(inputs({ task: task({ context: { irreversible: true } }) })).verdict.safety_analysis
        .all_constraints_met,
    ).toBe(false);
  });
});

import { evaluateRisk } from '../../domain/risk';
import { decideRouting, raiseEscalationLevel, type RoutingTask } from '../../domain/routing-decision';

const base: RoutingTask = {
  task_type: 'summarize',
  context: {},
  ai_agent_id: 'urn:acme:agent:sum:1',
  ai_confidence: 0.9,
  required_capabilities: [],
  safety_requirements: {},
  escalation_conditions: {},
};

const task = (changes: Partial<RoutingTask>): RoutingTask => ({ ...base, ...changes });

describe('decideRouting', () => {
  it.each<[string, RoutingTask, { decision: string; reason: string; escalation_level: string }]>([
    ['acts autonomously when confident and low risk', task({}), { decision: 'ai_autonomous', reason: 'within_ai_authority', escalation_level: 'none' }],
    ['acts autonomously at exactly 0.70', task({ ai_confidence: 0.7 }), { decision: 'ai_autonomous', reason: 'within_ai_authority', escalation_level: 'none' }],
    ['escalates when confidence is below 0.70 (the Fourth Law)', task({ ai_confidence: 0.69 }), { decision: 'escalate_to_human', reason: 'ai_confidence_below_threshold', escalation_level: 'low' }],
    ['escalates at zero confidence', task({ ai_confidence: 0 }), { decision: 'escalate_to_human', reason: 'ai_confidence_below_threshold', escalation_level: 'low' }],
    ['escalates urgently on a life-safety flag, even when confident', task({ escalation_conditions: { life_safety_flag: true } }), { decision: 'escalate_to_human', reason: 'life_safety_flag', escalation_level: 'urgent' }],
    ['names life safety before the Fourth Law when both apply', task({ ai_confidence: 0.2, escalation_conditions: { life_safety_flag: true } }), { decision: 'escalate_to_human', reason: 'life_safety_flag', escalation_level: 'urgent' }],
    ['escalates when uncertainty exceeds the caller’s threshold', task({ ai_confidence: 0.75, escalation_conditions: { uncertainty_threshold: 0.2 } }), { decision: 'escalate_to_human', reason: 'uncertainty_above_threshold', escalation_level: 'low' }],
    ['stays autonomous when uncertainty is within the threshold', task({ ai_confidence: 0.85, escalation_conditions: { uncertainty_threshold: 0.2 } }), { decision: 'ai_autonomous', reason: 'within_ai_authority', escalation_level: 'none' }],
    ['escalates when the evaluated risk exceeds max_risk_level', task({ context: { amount: 25_000 }, safety_requirements: { max_risk_level: 'medium' } }), { decision: 'escalate_to_human', reason: 'risk_exceeds_max_risk_level', escalation_level: 'high' }],
    ['escalates when human oversight is required', task({ safety_requirements: { human_oversight_required: true } }), { decision: 'escalate_to_human', reason: 'human_oversight_required', escalation_level: 'low' }],
    ['collaborates when the AI may act but the risk is high', task({ context: { irreversible: true } }), { decision: 'hybrid_collaboration', reason: 'high_risk_requires_human_confirmation', escalation_level: 'high' }],
    ['collaborates at critical risk within max_risk_level', task({ context: { risk_level: 'critical' }, safety_requirements: { max_risk_level: 'critical' } }), { decision: 'hybrid_collaboration', reason: 'high_risk_requires_human_confirmation', escalation_level: 'urgent' }],
    ['escalates at medium level for a low-confidence medium-risk task', task({ ai_confidence: 0.5, context: { amount: 5_000 } }), { decision: 'escalate_to_human', reason: 'ai_confidence_below_threshold', escalation_level: 'medium' }],
  ])('%s', (_name, input, expected) => {
    expect(decideRouting(input)).toMatchObject(expected);
  });

  it('evaluates every rule and reports which triggered', () => {
    const verdict = decideRouting(task({ ai_confidence: 0.5, safety_requirements: { human_oversight_required: true } }));
    expect(verdict.rules_evaluated.map((rule) => rule.rule_id)).toEqual([
      'life_safety',
      'fourth_law',
      'uncertainty_threshold',
      'max_risk_level',
      'human_oversight_required',
      'high_risk_confirmation',
    ]);
    expect(verdict.rules_evaluated.filter((rule) => rule.triggered).map((rule) => rule.rule_id)).toEqual(['fourth_law', 'human_oversight_required']);
  });

  it.each([
    ['all constraints met when no boundary triggers', task({}), true],
    ['a Fourth Law escalation breaks a constraint', task({ ai_confidence: 0.3 }), false],
    ['a human-oversight requirement is not a broken constraint', task({ safety_requirements: { human_oversight_required: true } }), true],
  ])('safety analysis: %s', (_name, input, met) => {
    const { safety_analysis } = decideRouting(input);
    expect(safety_analysis).toEqual({ risk_level: expect.any(String), safety_boundaries_checked: 4, ethical_constraints_checked: 3, all_constraints_met: met });
  });
});

describe('evaluateRisk', () => {
  it.each<[string, Record<string, unknown>, boolean, string]>([
    ['is low with no signals', {}, false, 'low'],
    ['takes the declared level', { risk_level: 'high' }, false, 'high'],
    ['ignores an unknown declared level', { risk_level: 'extreme' }, false, 'low'],
    ['is critical with a life-safety flag', {}, true, 'critical'],
    ['is medium from 1,000', { amount: 1_000 }, false, 'medium'],
    ['is high from 10,000', { amount: 10_000 }, false, 'high'],
    ['is critical from 100,000', { amount: -150_000 }, false, 'critical'],
    ['is high for an irreversible action', { irreversible: true }, false, 'high'],
    ['is medium with personal data', { contains_personal_data: true }, false, 'medium'],
    ['never lowers a declared level', { risk_level: 'high', amount: 5 }, false, 'high'],
  ])('%s', (_name, context, lifeSafetyFlag, level) => {
    expect(evaluateRisk({ context, lifeSafetyFlag }).level).toBe(level);
  });
});

describe('raiseEscalationLevel', () => {
  it.each([
    ['low', 'medium'],
    ['medium', 'high'],
    ['high', 'urgent'],
    ['urgent', 'urgent'],
  ] as const)('%s → %s', (from, to) => {
    expect(raiseEscalationLevel(from)).toBe(to);
  });
});

import type { AgentProfile } from '../../../domain/agents/agents';
import {
  assessRisk,
  DEFAULT_RISK_THRESHOLDS,
  evaluateRisk,
  levelForScore,
  thresholdsIncrease,
  type RiskLevel,
} from '../../../domain/routing/risk';
import { ruleOfThrees, type RuleOfThreesAnalysis } from '../../../domain/safety/rule-of-threes';
import {
  evaluateBoundaries,
  resolveDomain,
  type Boundary,
  type DomainSafetyConfig,
  type SafetyActor,
} from '../../../domain/safety/boundaries';
import { boundaryAnswer, safetyVerdict } from '../../../domain/safety/verdict';

const base = {
  description: 'd',
  enforcement: 'strict' as const,
  severity: 'high' as const,
  exceptions: null,
  escalation_required: true,
  actions: [] as string[],
};
const healthcare: DomainSafetyConfig = {
  domain: 'healthcare',
  task_types: ['medical_diagnosis'],
  risk_thresholds: { low: 0.1, medium: 0.3, high: 0.6, critical: 0.85 },
  boundaries: [
    {
      ...base,
      boundary_id: 'cap',
      type: 'capability_boundary',
      actions: ['diagnose'],
      required_capabilities: [{ capability_id: 'medical_diagnosis', min_weight: 0.8 }],
    },
    {
      ...base,
      boundary_id: 'no-rx',
      type: 'safety_boundary',
      severity: 'critical',
      actions: ['prescribe'],
      conditions: [],
      exceptions: 'emergency_override',
    },
    { ...base, boundary_id: 'ceiling', type: 'risk_boundary', max_risk_level: 'medium' },
    {
      ...base,
      boundary_id: 'consent',
      type: 'context_boundary',
      enforcement: 'advisory',
      severity: 'medium',
      escalation_required: true,
      required_context: ['patient_consent'],
    },
    {
      ...base,
      boundary_id: 'minors',
      type: 'safety_boundary',
      conditions: [{ condition_type: 'context.patient_age', operator: '<', value: 18 }],
    },
  ] satisfies Boundary[],
};

const strongAgent: AgentProfile = {
  agent_id: 'urn:a:agent:dx:1',
  status: 'active',
  capabilities: [{ capability_id: 'medical_diagnosis', confidence_level: 0.9 }],
  safety_constraints: {},
};

function check(
  action: string,
  context: Record<string, unknown>,
  actor: SafetyActor,
  agent: AgentProfile | null = strongAgent,
) {
  const risk = assessRisk({ context, lifeSafetyFlag: false }, healthcare.risk_thresholds);
  const facts = {
    task_type: action,
    domain: 'healthcare',
    risk_level: risk.level,
    ai_confidence: actor.confidence ?? 1,
    context,
  };
  return { risk, evaluation: evaluateBoundaries({ action, context, actor, agent, config: healthcare, facts, risk }) };
}

const ai = (confidence?: number): SafetyActor => ({ type: 'ai_agent', agent_id: strongAgent.agent_id, confidence });
const consent = { patient_consent: true };

describe('evaluateBoundaries', () => {
  it.each<[string, string, Record<string, unknown>, SafetyActor, AgentProfile | null, string[]]>([
    ['passes a capable, confident agent with consent', 'diagnose', consent, ai(0.9), strongAgent, []],
    [
      'finds the Fourth Law when confidence is below 0.70',
      'diagnose',
      consent,
      ai(0.6),
      strongAgent,
      ['fourth_law:ai_confidence_below_threshold'],
    ],
    [
      'finds a capability the agent has not proven',
      'diagnose',
      consent,
      ai(0.9),
      { ...strongAgent, capabilities: [{ capability_id: 'medical_diagnosis', confidence_level: 0.5 }] },
      ['cap:capability_not_proven'],
    ],
    [
      'finds no capability for an unregistered agent',
      'diagnose',
      consent,
      ai(0.9),
      null,
      ['cap:capability_not_proven'],
    ],
    ['forbids prescribing to any AI', 'prescribe', consent, ai(0.99), strongAgent, ['no-rx:safety_boundary_crossed']],
    [
      'crosses a risk ceiling on the amount',
      'diagnose',
      { ...consent, amount: 20_000 },
      ai(0.9),
      strongAgent,
      ['ceiling:amount_exceeds_ai_authority'],
    ],
    [
      'crosses a risk ceiling on irreversibility',
      'diagnose',
      { ...consent, irreversible: true },
      ai(0.9),
      strongAgent,
      ['ceiling:risk_exceeds_ai_authority'],
    ],
    ['asks for missing context', 'diagnose', {}, ai(0.9), strongAgent, ['consent:missing_context']],
    [
      'holds a conditional safety boundary where its conditions hold',
      'diagnose',
      { ...consent, patient_age: 12 },
      ai(0.9),
      strongAgent,
      ['minors:safety_boundary_crossed'],
    ],
    [
      'binds a human by context boundaries only',
      'prescribe',
      { amount: 50_000 },
      { type: 'human' },
      null,
      ['consent:missing_context'],
    ],
  ])('%s', (_name, action, context, actor, agent, expected) => {
    const { evaluation } = check(action, context, actor, agent);
    expect(evaluation.violations.map((v) => `${v.boundary_id}:${v.reason}`)).toEqual(expected);
  });

  it('applies the agent’s own constraints', () => {
    const constrained: AgentProfile = {
      ...strongAgent,
      safety_constraints: { cannot_prescribe: true, max_risk_level: 'low', requires_human_confirmation: true },
    };
    const { evaluation } = check('medication_order', { ...consent, amount: 2_000 }, ai(0.9), constrained);
    // 2,000 is medium risk: within the domain's medium ceiling, above the agent's own low one.
    expect(evaluation.violations.map((v) => `${v.boundary_id}:${v.reason}`)).toEqual([
      'agent:cannot_prescribe:agent_cannot_prescribe',
      'agent:max_risk_level:amount_exceeds_ai_authority',
    ]);
    expect(evaluation.confirmation_required).toBe(true);
  });

  it('waives a boundary through its exception for a human, never for an AI', () => {
    const human = check('prescribe', { ...consent, emergency_override: true }, { type: 'human' }, null).evaluation;
    expect(human.violations).toEqual([]);
    expect(human.waived).toEqual([]);
    const humanContext = check('diagnose', { emergency_override: true }, { type: 'human' }, null).evaluation;
    expect(humanContext.violations.map((v) => v.boundary_id)).toEqual(['consent']);
    const aiOverride = check('prescribe', { ...consent, emergency_override: true }, ai(0.99)).evaluation;
    expect(aiOverride.violations.map((v) => v.boundary_id)).toEqual(['no-rx']);
  });

  it('counts the checks that applied and recommends the capabilities the action needs', () => {
    const { evaluation } = check('diagnose', consent, ai(0.9));
    // Fourth Law, cap, ceiling, consent, minors (no-rx is for prescribing only).
    expect(evaluation.boundaries_checked).toBe(5);
    expect(evaluation.recommended_capabilities).toEqual([{ capability_id: 'medical_diagnosis', min_weight: 0.8 }]);
  });
});

describe('risk under domain thresholds', () => {
  it.each<[Record<string, unknown>, boolean, RiskLevel]>([
    [{}, false, 'low'],
    [{ amount: 999 }, false, 'low'],
    [{ amount: 1_000 }, false, 'medium'],
    [{ amount: -25_000 }, false, 'high'],
    [{ amount: 100_000 }, false, 'critical'],
    [{ irreversible: true }, false, 'high'],
    [{ contains_personal_data: true }, false, 'medium'],
    [{ risk_level: 'high', amount: 10 }, false, 'high'],
    [{}, true, 'critical'],
  ])(
    'gives the foundation’s levels with the default thresholds for %j (life safety %s)',
    (context, lifeSafetyFlag, level) => {
      expect(assessRisk({ context, lifeSafetyFlag }, DEFAULT_RISK_THRESHOLDS).level).toBe(level);
      expect(evaluateRisk({ context, lifeSafetyFlag }).level).toBe(level);
    },
  );

  it('reads the same score as a higher level under stricter thresholds', () => {
    expect(
      assessRisk(
        { context: { contains_personal_data: true }, lifeSafetyFlag: false },
        { low: 0.1, medium: 0.2, high: 0.4, critical: 0.8 },
      ),
    ).toMatchObject({ score: 0.45, level: 'high' });
  });

  it.each([
    [{ low: 0.2, medium: 0.4, high: 0.7, critical: 0.9 }, true],
    [{ low: 0, medium: 0.1, high: 0.2, critical: 1 }, true],
    [{ low: 0.2, medium: 0.2, high: 0.7, critical: 0.9 }, false],
    [{ low: 0.2, medium: 0.4, high: 0.3, critical: 0.9 }, false],
    [{ low: 0.2, medium: 0.4, high: 0.7, critical: 1.2 }, false],
  ])('checks thresholds increase: %j → %s', (thresholds, ok) => {
    expect(thresholdsIncrease(thresholds)).toBe(ok);
  });

  it('maps a score below low to low', () => {
    expect(levelForScore(0.05, DEFAULT_RISK_THRESHOLDS)).toBe('low');
  });
});

describe('resolveDomain', () => {
  it.each([
    [{ task_type: 'x', context: { domain: 'legal' } }, 'legal'],
    [{ task_type: 'medical_diagnosis', context: {} }, 'healthcare'],
    [{ task_type: 'summarize', context: {} }, 'general'],
  ])('%j is in %s', (task, domain) => {
    expect(resolveDomain(task, [healthcare])).toBe(domain);
  });
});

describe('ruleOfThrees', () => {
  const strict = {
    boundary_id: 'x',
    boundary_type: 'safety_boundary' as const,
    severity: 'high' as const,
    description: '',
    reason: 'r',
    enforcement: 'strict' as const,
    escalation_required: true,
  };
  it.each<[string, Record<string, unknown>, RiskLevel, boolean, Partial<RuleOfThreesAnalysis>]>([
    [
      'is aligned when each judgment is stated good',
      { benefit_to_individual: true, societal_impact: 'positive' },
      'low',
      false,
      { good_for_human: true, good_for_humanity: true, good_for_svc: true, overall_assessment: 'aligned' },
    ],
    [
      'cannot judge the human without a stated benefit',
      {},
      'low',
      false,
      {
        good_for_human: 'uncertain',
        good_for_humanity: true,
        good_for_svc: true,
        overall_assessment: 'requires_human_judgment',
      },
    ],
    [
      'finds harm to the person',
      { harm_to_individual: true, benefit_to_individual: true },
      'low',
      false,
      { good_for_human: false, overall_assessment: 'not_aligned' },
    ],
    [
      'finds withheld consent',
      { patient_consent: false, benefit_to_individual: true },
      'low',
      false,
      { good_for_human: false, overall_assessment: 'not_aligned' },
    ],
    [
      'finds a negative societal impact',
      { benefit_to_individual: true, societal_impact: 'negative' },
      'low',
      false,
      { good_for_humanity: false, overall_assessment: 'not_aligned' },
    ],
    [
      'leaves humanity uncertain for an irreversible action',
      { benefit_to_individual: true, irreversible: true },
      'low',
      false,
      { good_for_humanity: 'uncertain' },
    ],
    [
      'leaves humanity uncertain at high risk',
      { benefit_to_individual: true },
      'high',
      false,
      { good_for_humanity: 'uncertain', good_for_svc: 'uncertain', overall_assessment: 'requires_human_judgment' },
    ],
    [
      'finds acting across a strict boundary bad for the service',
      { benefit_to_individual: true, societal_impact: 'neutral' },
      'low',
      true,
      { good_for_svc: false, overall_assessment: 'not_aligned' },
    ],
  ])('%s', (_name, context, risk_level, violated, expected) => {
    expect(ruleOfThrees({ context, risk_level, violations: violated ? [strict] : [] })).toMatchObject(expected);
  });
});

describe('safetyVerdict and boundaryAnswer', () => {
  const aligned: RuleOfThreesAnalysis = {
    good_for_human: true,
    good_for_humanity: true,
    good_for_svc: true,
    overall_assessment: 'aligned',
  };
  const open: RuleOfThreesAnalysis = {
    ...aligned,
    good_for_human: 'uncertain',
    overall_assessment: 'requires_human_judgment',
  };

  it('allows what crosses nothing', () => {
    const { evaluation, risk } = check('diagnose', consent, ai(0.9));
    const verdict = safetyVerdict(evaluation, aligned, risk.level);
    expect(verdict).toEqual({ allowed: true, required_action: 'none' });
    expect(boundaryAnswer(evaluation, verdict, risk.level)).toEqual({
      action_allowed: true,
      reason: 'within_ai_authority',
      human_approval_required: false,
      approval_tier: 'none',
    });
  });

  it('sends an amount beyond the AI’s authority to a senior human', () => {
    const { evaluation, risk } = check('diagnose', { ...consent, amount: 20_000 }, ai(0.9));
    const verdict = safetyVerdict(evaluation, aligned, risk.level);
    expect(verdict).toEqual({ allowed: false, required_action: 'escalate_to_human' });
    expect(boundaryAnswer(evaluation, verdict, risk.level)).toEqual({
      action_allowed: false,
      reason: 'amount_exceeds_ai_authority',
      human_approval_required: true,
      approval_tier: 'senior',
    });
  });

  it('asks for confirmation on an advisory finding', () => {
    const { evaluation, risk } = check('diagnose', {}, ai(0.9));
    expect(safetyVerdict(evaluation, aligned, risk.level)).toEqual({
      allowed: true,
      required_action: 'human_confirmation',
    });
  });

  it('asks for confirmation when ethics are open at high risk, not at low risk', () => {
    const { evaluation } = check('diagnose', consent, ai(0.9));
    expect(safetyVerdict(evaluation, open, 'high').required_action).toBe('human_confirmation');
    expect(safetyVerdict(evaluation, open, 'low').required_action).toBe('none');
  });

  it('escalates what the Rule of Threes judges against', () => {
    const { evaluation } = check('diagnose', consent, ai(0.9));
    expect(
      safetyVerdict(evaluation, { ...aligned, good_for_humanity: false, overall_assessment: 'not_aligned' }, 'low'),
    ).toEqual({ allowed: false, required_action: 'escalate_to_human' });
  });

  it('denies what a strict boundary without escalation forbids', () => {
    const { evaluation, risk } = check('prescribe', consent, ai(0.9));
    const denying = {
      ...evaluation,
      violations: evaluation.violations.map((v) => ({ ...v, escalation_required: false })),
    };
    const verdict = safetyVerdict(denying, aligned, risk.level);
    expect(verdict).toEqual({ allowed: false, required_action: 'deny' });
    expect(boundaryAnswer(denying, verdict, risk.level)).toMatchObject({
      action_allowed: false,
      approval_tier: 'not_permitted',
      human_approval_required: false,
    });
  });
});

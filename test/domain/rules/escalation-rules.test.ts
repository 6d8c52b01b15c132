import { isWithin, overlaps, regionOf } from '../../../domain/rules/condition-regions';
import type { Condition, RoutingFacts } from '../../../domain/rules/conditions';
import {
  analyzeRule,
  appliesTo,
  dueNotifications,
  evaluateRules,
  notificationLevel,
  ruleProblems,
  ruleScope,
  triggerRate,
  type EscalationRule,
  type NotificationThreshold,
  type RuleAction,
} from '../../../domain/rules/escalation-rules';
import type { EscalationLevel } from '../../../domain/routing/decision';

const c = (condition_type: string, operator: Condition['operator'], value: Condition['value']): Condition => ({
  condition_type,
  operator,
  value,
});
const escalate = (
  target_capability: string,
  urgency: 'low' | 'medium' | 'high' | 'urgent' = 'high',
  min_weight = 0.8,
): RuleAction => ({
  action: 'escalate_to_human',
  target_capability,
  min_weight,
  urgency,
});
const notify = (notification_threshold: 'low' | 'medium' | 'high' | 'urgent'): RuleAction => ({
  action: 'notify_supervisor',
  notification_threshold,
});
const rule = (
  rule_id: string,
  priority: EscalationRule['priority'],
  conditions: Condition[],
  actions: RuleAction[],
): EscalationRule => ({
  rule_id,
  rule_name: rule_id,
  priority,
  conditions,
  actions,
});

const facts: RoutingFacts = {
  task_type: 'medical_diagnosis',
  domain: 'healthcare',
  risk_level: 'high',
  ai_confidence: 0.8,
  context: { amount: 500 },
};

describe('evaluateRules', () => {
  it('escalates with the triggered rule and records every rule with its reason', () => {
    const result = evaluateRules(
      [
        rule(
          'r1',
          'high',
          [c('domain', '==', 'healthcare'), c('risk_level', '>=', 'high')],
          [escalate('medical_diagnosis')],
        ),
        rule('r2', 'high', [c('domain', '==', 'finance')], [escalate('financial_approval')]),
      ],
      facts,
    );
    expect(result.outcome).toEqual({
      kind: 'escalate',
      rule_ids: ['r1'],
      target_capability: 'medical_diagnosis',
      min_weight: 0.8,
      urgency: 'high',
    });
    expect(result.evaluations).toEqual([
      { rule_id: 'r1', triggered: true, reason: 'domain healthcare == healthcare; risk_level high >= high' },
      { rule_id: 'r2', triggered: false, reason: 'domain healthcare == finance does not hold' },
    ]);
  });

  it('lets the higher priority decide and says the lower one was overridden', () => {
    const result = evaluateRules(
      [
        rule('low', 'low', [], [escalate('general_review', 'urgent')]),
        rule('crit', 'critical', [], [escalate('medical_diagnosis', 'medium')]),
      ],
      facts,
    );
    expect(result.outcome).toMatchObject({
      kind: 'escalate',
      rule_ids: ['crit'],
      target_capability: 'medical_diagnosis',
      urgency: 'medium',
    });
    expect(result.evaluations[0]!.reason).toContain('overridden by a critical priority rule');
  });

  it('merges rules of the same priority that agree: highest min_weight and urgency', () => {
    const result = evaluateRules(
      [
        rule('a', 'high', [], [escalate('medical_diagnosis', 'low', 0.6)]),
        rule('b', 'high', [], [escalate('medical_diagnosis', 'urgent', 0.9)]),
      ],
      facts,
    );
    expect(result.outcome).toEqual({
      kind: 'escalate',
      rule_ids: ['a', 'b'],
      target_capability: 'medical_diagnosis',
      min_weight: 0.9,
      urgency: 'urgent',
    });
  });

  it('reports a conflict when rules of the same, highest priority name different capabilities', () => {
    const result = evaluateRules(
      [
        rule('a', 'high', [], [escalate('medical_diagnosis', 'low')]),
        rule('b', 'high', [], [escalate('legal_review', 'high')]),
      ],
      facts,
    );
    expect(result.outcome).toEqual({
      kind: 'conflict',
      rule_ids: ['a', 'b'],
      target_capabilities: ['medical_diagnosis', 'legal_review'],
      urgency: 'high',
    });
  });

  it('decides nothing when only notifications trigger, and keeps them for later', () => {
    const result = evaluateRules([rule('n', 'low', [c('risk_level', '>=', 'medium')], [notify('medium')])], facts);
    expect(result.outcome).toEqual({ kind: 'none' });
    expect(result.notifications).toEqual([{ rule_id: 'n', notification_threshold: 'medium' }]);
    expect(dueNotifications(result.notifications, 'low')).toEqual([]);
    expect(dueNotifications(result.notifications, 'high')).toEqual(result.notifications);
    expect(dueNotifications(result.notifications, 'none')).toEqual([]);
  });
});

describe('notification thresholds', () => {
  it.each<[NotificationThreshold, string]>([
    ['low', 'low'],
    ['medium', 'medium'],
    ['high', 'high'],
    ['urgent', 'urgent'],
    ['critical', 'urgent'],
  ])('reads threshold %s as escalation level %s', (threshold, level) => {
    expect(notificationLevel(threshold)).toBe(level);
  });

  it.each<[string, NotificationThreshold, EscalationLevel, boolean]>([
    ['tells nobody about a critical threshold at high', 'critical', 'high', false],
    ['tells the supervisor of a critical threshold at urgent', 'critical', 'urgent', true],
    ['tells the supervisor of a high threshold at urgent', 'high', 'urgent', true],
  ])('%s', (_name, threshold, level, due) => {
    expect(dueNotifications([{ rule_id: 'n', notification_threshold: threshold }], level)).toHaveLength(due ? 1 : 0);
  });

  it('finds a rule notifying at critical shadowed by one notifying at urgent, as the same threshold', () => {
    const conditions = [c('domain', '==', 'finance')];
    const findings = analyzeRule(
      rule('new', 'medium', conditions, [{ action: 'notify_supervisor', notification_threshold: 'critical' }]),
      [rule('old', 'medium', conditions, [notify('urgent')])],
    );
    expect(findings).toEqual([expect.objectContaining({ kind: 'shadowed_by', rule_id: 'old' })]);
  });
});

describe('condition regions', () => {
  it.each<[string, Condition[], Condition[], boolean]>([
    ['disjoint domains', [c('domain', '==', 'finance')], [c('domain', '==', 'healthcare')], false],
    ['same domain', [c('domain', '==', 'finance')], [c('domain', 'in', ['finance', 'legal'])], true],
    ['excluded domain', [c('domain', '==', 'finance')], [c('domain', '!=', 'finance')], false],
    ['touching closed amount bounds', [c('amount', '>=', 100)], [c('amount', '<=', 100)], true],
    ['touching open amount bounds', [c('amount', '>', 100)], [c('amount', '<=', 100)], false],
    ['risk ranks that meet', [c('risk_level', '>=', 'high')], [c('risk_level', 'in', ['critical'])], true],
    ['risk ranks that do not', [c('risk_level', '<', 'high')], [c('risk_level', '==', 'critical')], false],
    ['unrelated fields', [c('domain', '==', 'finance')], [c('ai_confidence', '<', 0.7)], true],
  ])('overlap: %s', (_name, a, b, expected) => {
    expect(overlaps(regionOf(a), regionOf(b))).toBe(expected);
    expect(overlaps(regionOf(b), regionOf(a))).toBe(expected);
  });

  it.each<[string, Condition[], Condition[], boolean]>([
    ['a narrower amount range', [c('amount', '>', 5000)], [c('amount', '>=', 1000)], true],
    ['a wider amount range', [c('amount', '>=', 1000)], [c('amount', '>', 5000)], false],
    [
      'extra conditions narrow',
      [c('domain', '==', 'finance'), c('amount', '>', 10)],
      [c('domain', '==', 'finance')],
      true,
    ],
    [
      'no amount condition is not within an amount condition (the amount may be missing)',
      [c('domain', '==', 'finance')],
      [c('amount', '>', 0)],
      false,
    ],
    ['every confidence is within >= 0', [c('domain', '==', 'x')], [c('ai_confidence', '>=', 0)], true],
    ['every risk is within the full list', [], [c('risk_level', 'in', ['low', 'medium', 'high', 'critical'])], true],
    ['an allow-list within an exclusion', [c('task_type', 'in', ['a', 'b'])], [c('task_type', '!=', 'c')], true],
    ['an allow-list overlapping the exclusion', [c('task_type', 'in', ['a', 'c'])], [c('task_type', '!=', 'c')], false],
    ['open upper bound inside closed', [c('ai_confidence', '<', 0.7)], [c('ai_confidence', '<=', 0.7)], true],
    ['closed upper bound not inside open', [c('ai_confidence', '<=', 0.7)], [c('ai_confidence', '<', 0.7)], false],
    ['an excluded point outside the inner range', [c('amount', '>', 100)], [c('amount', '!=', 50)], true],
    ['an excluded point inside the inner range', [c('amount', '>', 10)], [c('amount', '!=', 50)], false],
  ])('within: %s', (_name, inner, outer, expected) => {
    expect(isWithin(regionOf(inner), regionOf(outer))).toBe(expected);
  });
});

describe('ruleProblems', () => {
  it('finds contradicting conditions', () => {
    expect(
      ruleProblems({ conditions: [c('amount', '>', 100), c('amount', '<', 50)], actions: [escalate('x')] }),
    ).toEqual([{ field: 'conditions', message: expect.stringContaining('could never trigger') }]);
  });

  it('finds a malformed condition by its index and a duplicated action', () => {
    expect(
      ruleProblems({
        conditions: [c('domain', '==', 'x'), c('risk_level', '==', 'extreme')],
        actions: [escalate('x'), escalate('y')],
      }),
    ).toEqual([
      { field: 'conditions.1', message: expect.stringContaining('risk_level values') },
      { field: 'actions', message: 'at most one escalate_to_human action per rule' },
    ]);
  });
});

describe('analyzeRule', () => {
  const existing = [
    rule(
      'fin-high',
      'high',
      [c('domain', '==', 'finance'), c('amount', '>=', 10_000)],
      [escalate('financial_approval')],
    ),
    rule('health', 'medium', [c('domain', '==', 'healthcare')], [escalate('medical_diagnosis'), notify('medium')]),
  ];

  it.each<[string, EscalationRule, Array<{ kind: string; rule_id: string }>]>([
    [
      'finds nothing for a rule of another domain',
      rule('new', 'high', [c('domain', '==', 'legal')], [escalate('legal_review')]),
      [],
    ],
    [
      'finds a conflict: same priority, overlapping, different capability',
      rule(
        'new',
        'high',
        [c('domain', '==', 'finance'), c('context.jurisdiction', '==', 'EU')],
        [escalate('legal_review')],
      ),
      [{ kind: 'conflict', rule_id: 'fin-high' }],
    ],
    [
      'finds no conflict when priority settles it (the broader critical rule shadows the high one instead)',
      rule('new', 'critical', [c('domain', '==', 'finance')], [escalate('legal_review')]),
      [{ kind: 'shadows', rule_id: 'fin-high' }],
    ],
    [
      'finds nothing when priority settles it and neither covers the other',
      rule('new', 'critical', [c('domain', '==', 'finance'), c('amount', '<', 20_000)], [escalate('legal_review')]),
      [],
    ],
    [
      'finds a rule shadowed by a higher priority one that matches all it matches',
      rule('new', 'low', [c('domain', '==', 'finance'), c('amount', '>', 50_000)], [escalate('general_review')]),
      [{ kind: 'shadowed_by', rule_id: 'fin-high' }],
    ],
    [
      'finds a duplicate at the same priority',
      rule(
        'new',
        'medium',
        [c('domain', '==', 'healthcare'), c('risk_level', '>=', 'high')],
        [escalate('medical_diagnosis', 'high', 0.5), notify('high')],
      ),
      [{ kind: 'shadowed_by', rule_id: 'health' }],
    ],
    [
      'keeps a narrower rule that notifies earlier',
      rule(
        'new',
        'medium',
        [c('domain', '==', 'healthcare'), c('risk_level', '>=', 'high')],
        [escalate('medical_diagnosis'), notify('low')],
      ),
      [],
    ],
    [
      'finds an existing rule the new one shadows',
      rule('new', 'critical', [c('domain', 'in', ['finance', 'legal'])], [escalate('financial_approval')]),
      [{ kind: 'shadows', rule_id: 'fin-high' }],
    ],
  ])('%s', (_name, candidate, expected) => {
    expect(analyzeRule(candidate, existing).map(({ kind, rule_id }) => ({ kind, rule_id }))).toEqual(expected);
  });

  it('ignores the rule itself when it is being changed', () => {
    expect(analyzeRule(existing[0]!, existing)).toEqual([]);
  });
});

describe('scope and applies_to', () => {
  it.each<[string, Condition[], { task_types: string[] | null; domains: string[] | null }, string[]]>([
    ['names task types', [c('task_type', 'in', ['b', 'a'])], { task_types: ['b', 'a'], domains: null }, ['a', 'b']],
    [
      'narrows task types by two conditions',
      [c('task_type', 'in', ['a', 'b']), c('task_type', '!=', 'b')],
      { task_types: ['a'], domains: null },
      ['a'],
    ],
    [
      'takes the task types of a domain',
      [c('domain', '==', 'healthcare')],
      { task_types: null, domains: ['healthcare'] },
      ['diagnosis', 'prescription'],
    ],
    [
      'matches every task type otherwise',
      [c('risk_level', '>=', 'high'), c('task_type', '!=', 'a')],
      { task_types: null, domains: null },
      ['*'],
    ],
  ])('%s', (_name, conditions, scope, applies) => {
    expect(ruleScope(conditions)).toEqual(scope);
    expect(
      appliesTo(ruleScope(conditions), (domain) => (domain === 'healthcare' ? ['prescription', 'diagnosis'] : [])),
    ).toEqual(applies);
  });
});

describe('triggerRate', () => {
  it('is the share of replayed routings the conditions match', () => {
    const history = [0.5, 0.6, 0.8, 0.9].map((ai_confidence) => ({ ...facts, ai_confidence }));
    expect(triggerRate([c('ai_confidence', '<', 0.7)], history)).toEqual({
      estimated_trigger_rate: '50.0%',
      routings_replayed: 4,
      routings_triggered: 2,
    });
  });

  it('is n/a without history', () => {
    expect(triggerRate([], [])).toEqual({ estimated_trigger_rate: 'n/a', routings_replayed: 0, routings_triggered: 0 });
  });
});

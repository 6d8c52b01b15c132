import {
  conditionProblem,
  evaluateCondition,
  evaluateConditions,
  type Condition,
  type RoutingFacts,
} from '../../../domain/rules/conditions';

const facts: RoutingFacts = {
  task_type: 'invoice_approval',
  domain: 'finance',
  risk_level: 'high',
  ai_confidence: 0.82,
  context: { amount: 12_000, jurisdiction: 'EU', patient: { age: 71 }, urgent: true },
};

const c = (condition_type: string, operator: Condition['operator'], value: Condition['value']): Condition => ({
  condition_type,
  operator,
  value,
});

describe('evaluateCondition', () => {
  it.each<[string, Condition, boolean]>([
    ['compares risk levels by rank (high >= high)', c('risk_level', '>=', 'high'), true],
    ['compares risk levels by rank (high > medium)', c('risk_level', '>', 'medium'), true],
    ['compares risk levels by rank (high < critical)', c('risk_level', '<', 'critical'), true],
    ['compares risk levels by rank (not high <= medium)', c('risk_level', '<=', 'medium'), false],
    ['matches a domain by ==', c('domain', '==', 'finance'), true],
    ['matches a task type by !=', c('task_type', '!=', 'payment'), true],
    ['matches a task type in a list', c('task_type', 'in', ['payment', 'invoice_approval']), true],
    ['matches a task type not in a list', c('task_type', 'not_in', ['payment', 'invoice_approval']), false],
    ['compares confidence below a bound', c('ai_confidence', '<', 0.85), true],
    ['compares confidence at a bound', c('ai_confidence', '>=', 0.82), true],
    ['compares the amount', c('amount', '>', 10_000), true],
    ['reads a context field', c('context.jurisdiction', '==', 'EU'), true],
    ['reads a nested context field', c('context.patient.age', '>=', 65), true],
    ['reads a boolean context field', c('context.urgent', '==', true), true],
    ['does not order strings', c('context.jurisdiction', '>', 3), false],
    ['does not hold on a missing context field', c('context.missing', '!=', 'x'), false],
    ['does not descend into a scalar', c('context.amount.value', '==', 1), false],
  ])('%s', (_name, condition, holds) => {
    expect(evaluateCondition(condition, facts).holds).toBe(holds);
  });

  it('does not hold on a missing amount, and says so', () => {
    expect(evaluateCondition(c('amount', '<', 100), { ...facts, context: {} })).toEqual({
      holds: false,
      explanation: 'amount is missing',
      missing: true,
    });
  });
});

describe('evaluateConditions', () => {
  it('holds when all hold and lists them', () => {
    expect(evaluateConditions([c('risk_level', '>=', 'high'), c('domain', '==', 'finance')], facts)).toEqual({
      holds: true,
      explanation: 'risk_level high >= high; domain finance == finance',
    });
  });

  it('names the first condition that does not hold', () => {
    expect(
      evaluateConditions([c('domain', '==', 'finance'), c('ai_confidence', '<', 0.7), c('amount', '>', 1)], facts),
    ).toEqual({
      holds: false,
      explanation: 'ai_confidence 0.82 < 0.7 does not hold',
    });
  });

  it('holds with no conditions', () => {
    expect(evaluateConditions([], facts).holds).toBe(true);
  });
});

describe('conditionProblem', () => {
  it.each<[string, Condition, string | undefined]>([
    ['accepts a risk level comparison', c('risk_level', '>=', 'high'), undefined],
    ['accepts a context field with in', c('context.region', 'in', ['EU', 'UK']), undefined],
    ['rejects an unknown field', c('weather', '==', 'rain'), 'unknown condition_type'],
    ['rejects an unknown risk level', c('risk_level', '==', 'extreme'), 'risk_level values'],
    ['rejects a string amount', c('amount', '>', '100'), 'amount compares with numbers'],
    ['rejects a confidence above 1', c('ai_confidence', '<', 1.5), 'between 0 and 1'],
    ['rejects ordering task types', c('task_type', '>', 'a'), 'task_type compares with strings'],
    ['rejects in with a single value', c('domain', 'in', 'finance'), 'in takes a list'],
    ['rejects == with a list', c('domain', '==', ['finance']), '== takes a single value'],
    ['rejects an empty list', c('domain', 'in', []), 'needs at least one value'],
    ['rejects ordering a context field against a string', c('context.region', '>=', 'EU'), 'compares with a number'],
  ])('%s', (_name, condition, problem) => {
    const found = conditionProblem(condition);
    if (problem === undefined) expect(found).toBeUndefined();
    else expect(found).toContain(problem);
  });
});

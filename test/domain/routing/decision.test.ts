import { evaluateRisk } from '../../../domain/routing/risk';
import { raiseEscalationLevel } from '../../../domain/routing/decision';

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

import { AUTONOMY_CONFIDENCE_FLOOR, autonomyPolicy } from '../../../domain/routing/autonomy';
import type { AutonomyProfile } from '../../../domain/common/organizations';
import { DEFAULT_RISK_THRESHOLDS } from '../../../domain/routing/risk';
import type { RoutingTask } from '../../../domain/routing/decision';
import { decideRoutingMoments } from '../../../domain/routing/moments';

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

const decide = (profile: AutonomyProfile | undefined, changes: Partial<RoutingTask>) =>
  decideRoutingMoments({
    task: task(changes),
    agent: null,
    domain: 'general',
    safety: { domain: 'general', task_types: [], risk_thresholds: DEFAULT_RISK_THRESHOLDS, boundaries: [] },
    rules: [],
    rule_set: { version: 1, enabled: 0 },
    autonomy_profile: profile,
  }).verdict;

describe('autonomyPolicy', () => {
  it.each<[AutonomyProfile | undefined, number, string]>([
    ['paranoid', 0.85, 'medium'],
    ['balanced', 0.7, 'high'],
    ['aggressive', 0.6, 'high'],
    [undefined, 0.7, 'high'],
  ])('%s hands over below %s and is hybrid at least from %s risk', (profile, threshold, hybridFrom) => {
    expect(autonomyPolicy(profile)).toEqual({ confidence_threshold: threshold, hybrid_from_risk: hybridFrom });
  });

  it('never goes below the floor of 0.50', () => {
    for (const profile of ['paranoid', 'balanced', 'aggressive'] as const)
      expect(autonomyPolicy(profile).confidence_threshold).toBeGreaterThanOrEqual(AUTONOMY_CONFIDENCE_FLOOR);
  });
});

describe('decideRoutingMoments under an autonomy profile', () => {
  it.each<[string, AutonomyProfile | undefined, Partial<RoutingTask>, { decision: string; reason: string }]>([
    [
      'paranoid escalates a confident 0.80 that balanced lets act',
      'paranoid',
      { ai_confidence: 0.8 },
      { decision: 'escalate_to_human', reason: 'ai_confidence_below_threshold' },
    ],
    [
      'balanced lets 0.80 act alone',
      'balanced',
      { ai_confidence: 0.8 },
      { decision: 'ai_autonomous', reason: 'within_ai_authority' },
    ],
    [
      'paranoid lets 0.85 act alone at low risk',
      'paranoid',
      { ai_confidence: 0.85 },
      { decision: 'ai_autonomous', reason: 'within_ai_authority' },
    ],
    [
      'balanced escalates 0.65',
      'balanced',
      { ai_confidence: 0.65 },
      { decision: 'escalate_to_human', reason: 'ai_confidence_below_threshold' },
    ],
    [
      'aggressive lets 0.65 act alone',
      'aggressive',
      { ai_confidence: 0.65 },
      { decision: 'ai_autonomous', reason: 'within_ai_authority' },
    ],
    [
      'aggressive still escalates 0.55',
      'aggressive',
      { ai_confidence: 0.55 },
      { decision: 'escalate_to_human', reason: 'ai_confidence_below_threshold' },
    ],
    [
      'no profile is balanced',
      undefined,
      { ai_confidence: 0.65 },
      { decision: 'escalate_to_human', reason: 'ai_confidence_below_threshold' },
    ],
    [
      'paranoid makes medium risk hybrid',
      'paranoid',
      { ai_confidence: 0.95, context: { amount: 5_000 } },
      { decision: 'hybrid_collaboration', reason: 'autonomy_profile_requires_human_confirmation' },
    ],
    [
      'balanced lets medium risk act alone',
      'balanced',
      { ai_confidence: 0.95, context: { amount: 5_000 } },
      { decision: 'ai_autonomous', reason: 'within_ai_authority' },
    ],
    [
      'paranoid makes high risk hybrid at least',
      'paranoid',
      { ai_confidence: 0.95, context: { amount: 20_000 } },
      { decision: 'hybrid_collaboration', reason: 'high_risk_requires_human_confirmation' },
    ],
    [
      'aggressive still makes high risk hybrid',
      'aggressive',
      { ai_confidence: 0.95, context: { amount: 20_000 } },
      { decision: 'hybrid_collaboration', reason: 'high_risk_requires_human_confirmation' },
    ],
  ])('%s', (_name, profile, changes, expected) => {
    expect(decide(profile, changes)).toMatchObject(expected);
  });
});

import {
  agentPerformance,
  periodSeconds,
  performanceTrend,
  type OutcomeCounts,
  type PeriodInput,
  type TaskTypeOutcomes,
} from '../../../domain/agents/performance';

const zero: OutcomeCounts = {
  total: 0,
  autonomous: 0,
  escalated: 0,
  resolved: 0,
  approved: 0,
  overturned: 0,
  confirmed: 0,
  confidence_sum: 0,
  safety_violations: 0,
  boundaries_met: 0,
};
const row = (task_type: string, counts: Partial<OutcomeCounts>): TaskTypeOutcomes => ({
  ...zero,
  task_type,
  ...counts,
});
const period = (
  rows: TaskTypeOutcomes[],
  reasons: PeriodInput['escalation_reasons'] = [],
  checks = { total: 0, passed: 0, violations: 0 },
): PeriodInput => ({
  by_task_type: rows,
  escalation_reasons: reasons,
  safety_checks: checks,
});

describe('agentPerformance', () => {
  const current = period(
    [
      // 10 diagnoses: 8 escalated (6 resolved: 2 approved), 2 autonomous (1 overturned).
      row('medical_diagnosis', {
        total: 10,
        autonomous: 2,
        escalated: 8,
        resolved: 6,
        approved: 2,
        overturned: 1,
        confidence_sum: 5.5,
        safety_violations: 3,
        boundaries_met: 4,
      }),
      // 10 summaries: all autonomous, 2 confirmed by feedback.
      row('summarize', { total: 10, autonomous: 10, confirmed: 2, confidence_sum: 9.2, boundaries_met: 10 }),
    ],
    [
      { reason: 'ai_confidence_below_threshold', count: 6 },
      { reason: 'safety_boundary_crossed', count: 2 },
    ],
    { total: 4, passed: 3, violations: 1 },
  );

  it('computes every figure from the outcomes', () => {
    const performance = agentPerformance(current, period([]));
    expect(performance).toMatchObject({
      total_requests: 20,
      // 2 − 1 autonomous diagnoses stood, 2 were approved, 10 summaries stood.
      successful_resolutions: 13,
      escalations_to_human: 8,
      escalation_rate: 0.4,
      safety_violations: 4,
      boundary_checks_passed: 17,
      performance_trend: 'insufficient_data',
    });
    expect(performance.avg_confidence).toBeCloseTo(0.735);
    // Judged: 6 resolutions, 2 confirmed, 1 overturned; agreed: 2 approved + 2 confirmed.
    expect(performance.accuracy_metrics.human_agreement_rate).toBeCloseTo(4 / 9);
    expect(performance.accuracy_metrics.false_positive_rate).toBeCloseTo(2 / 6);
    expect(performance.accuracy_metrics.false_negative_rate).toBeCloseTo(1 / 12);
  });

  it('names where the agent escalates or fails most, most affected first', () => {
    expect(agentPerformance(current, period([])).areas_for_improvement).toEqual([
      'medical_diagnosis: escalated 8 of 10 routings (80%)',
      'ai_confidence_below_threshold: the reason for 6 of 8 escalations',
      'safety boundaries: 4 violations',
      'medical_diagnosis: 1 of 2 autonomous decisions overturned or flagged',
    ]);
  });

  it('reports null rates and no areas when there is nothing to measure', () => {
    expect(agentPerformance(period([]), period([]))).toEqual({
      total_requests: 0,
      successful_resolutions: 0,
      escalations_to_human: 0,
      escalation_rate: 0,
      avg_confidence: null,
      safety_violations: 0,
      boundary_checks_passed: 0,
      accuracy_metrics: { human_agreement_rate: null, false_positive_rate: null, false_negative_rate: null },
      performance_trend: 'insufficient_data',
      areas_for_improvement: [],
    });
  });
});

describe('performanceTrend', () => {
  const settled = (autonomous: number, overturned: number): OutcomeCounts => ({
    ...zero,
    total: autonomous,
    autonomous,
    overturned,
  });
  it.each<[string, OutcomeCounts, OutcomeCounts, string]>([
    ['improving when the success rate rose by 5 points or more', settled(10, 0), settled(10, 2), 'improving'],
    ['declining when it fell by 5 points or more', settled(10, 3), settled(10, 1), 'declining'],
    ['stable within 5 points', settled(20, 1), settled(20, 1), 'stable'],
    ['insufficient data with fewer than 5 settled routings', settled(4, 0), settled(10, 5), 'insufficient_data'],
  ])('%s', (_name, now, before, trend) => {
    expect(performanceTrend(now, before)).toBe(trend);
  });
});

describe('periodSeconds', () => {
  it.each([
    ['30d', 30 * 86_400],
    ['12h', 12 * 3600],
    ['4w', 4 * 604_800],
    ['0d', undefined],
    ['30', undefined],
    ['1y', undefined],
    ['-3d', undefined],
  ])('%s', (text, seconds) => {
    expect(periodSeconds(text)).toBe(seconds);
  });
});

/**
 * An agent's performance over a period, from the outcomes of its routings. A routing counts as:
 *
 *   autonomous  decided for the agent alone and never handed to a human
 *   escalated   a human took it, at the decision or later
 *   resolved    its human answered: approved (the AI's recommendation stands), rejected or modified
 *   overturned  autonomous, and later overturned or flagged by feedback
 *   confirmed   autonomous, and later confirmed by feedback
 */
export interface OutcomeCounts {
  total: number;
  autonomous: number;
  escalated: number;
  resolved: number;
  approved: number;
  overturned: number;
  confirmed: number;
  confidence_sum: number;
  safety_violations: number;
  /** Routings decided with every boundary met. */
  boundaries_met: number;
}

export interface TaskTypeOutcomes extends OutcomeCounts {
  task_type: string;
}

export interface PeriodInput {
  by_task_type: TaskTypeOutcomes[];
  /** Why routings went to a human, with how many did for each reason. */
  escalation_reasons: Array<{ reason: string; count: number }>;
  /** POST /safety/check calls for the agent: how many, how many allowed, violations found. */
  safety_checks: { total: number; passed: number; violations: number };
}

export const PERFORMANCE_TRENDS = ['improving', 'stable', 'declining', 'insufficient_data'] as const;
export type PerformanceTrend = (typeof PERFORMANCE_TRENDS)[number];

export interface AgentPerformance {
  total_requests: number;
  successful_resolutions: number;
  escalations_to_human: number;
  escalation_rate: number;
  avg_confidence: number | null;
  safety_violations: number;
  boundary_checks_passed: number;
  accuracy_metrics: {
    human_agreement_rate: number | null;
    false_positive_rate: number | null;
    false_negative_rate: number | null;
  };
  performance_trend: PerformanceTrend;
  areas_for_improvement: string[];
}

/** Fewer settled routings than this in either period make a trend meaningless. */
export const MIN_SETTLED_FOR_TREND = 5;
/** A change of the success rate smaller than this is noise. */
export const TREND_THRESHOLD = 0.05;
const MIN_FOR_AREA = 3;
const HIGH_ESCALATION_RATE = 0.5;
const DOMINANT_REASON_SHARE = 0.3;
const MAX_AREAS = 5;

const ZERO: OutcomeCounts = {
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

export function sumOutcomes(rows: readonly OutcomeCounts[]): OutcomeCounts {
  return rows.reduce<OutcomeCounts>(
    (sum, row) =>
      Object.fromEntries(
        Object.keys(ZERO).map((key) => [key, sum[key as keyof OutcomeCounts] + row[key as keyof OutcomeCounts]]),
      ) as unknown as OutcomeCounts,
    ZERO,
  );
}

const ratio = (part: number, whole: number) => (whole === 0 ? null : part / whole);

/** The AI's recommendation stood: autonomous and not overturned, or approved by its human. */
const successes = (o: OutcomeCounts) => o.autonomous - o.overturned + o.approved;
/** Routings whose outcome is known: autonomous ones, and those a human resolved. */
const settled = (o: OutcomeCounts) => o.autonomous + o.resolved;

export function performanceTrend(current: OutcomeCounts, previous: OutcomeCounts): PerformanceTrend {
  if (settled(current) < MIN_SETTLED_FOR_TREND || settled(previous) < MIN_SETTLED_FOR_TREND) return 'insufficient_data';
  const change = successes(current) / settled(current) - successes(previous) / settled(previous);
  if (change >= TREND_THRESHOLD) return 'improving';
  if (change <= -TREND_THRESHOLD) return 'declining';
  return 'stable';
}

const percent = (part: number, whole: number) => `${Math.round((100 * part) / whole)}%`;

/**
 * Where the agent escalates or fails most, most affected routings first: task types it mostly hands to
 * humans, task types where its autonomous decisions were overturned, a reason that dominates its
 * escalations, escalations its humans found unnecessary, and safety violations.
 */
export function areasForImprovement(period: PeriodInput, totals: OutcomeCounts): string[] {
  const areas: Array<{ weight: number; text: string }> = [];
  for (const row of period.by_task_type) {
    if (row.total >= MIN_FOR_AREA && row.escalated / row.total >= HIGH_ESCALATION_RATE) {
      areas.push({
        weight: row.escalated,
        text: `${row.task_type}: escalated ${row.escalated} of ${row.total} routings (${percent(row.escalated, row.total)})`,
      });
    }
    if (row.overturned > 0) {
      areas.push({
        weight: row.overturned * 2,
        text: `${row.task_type}: ${row.overturned} of ${row.autonomous} autonomous decisions overturned or flagged`,
      });
    }
  }
  const top = [...period.escalation_reasons].sort((a, b) => b.count - a.count)[0];
  if (top && totals.escalated >= MIN_FOR_AREA && top.count / totals.escalated >= DOMINANT_REASON_SHARE) {
    areas.push({
      weight: top.count,
      text: `${top.reason}: the reason for ${top.count} of ${totals.escalated} escalations`,
    });
  }
  const unnecessary = totals.approved;
  if (totals.resolved >= MIN_FOR_AREA && unnecessary / totals.resolved >= HIGH_ESCALATION_RATE) {
    areas.push({
      weight: unnecessary,
      text: `unnecessary escalations: humans approved ${unnecessary} of ${totals.resolved} escalated recommendations unchanged`,
    });
  }
  const violations = totals.safety_violations + period.safety_checks.violations;
  if (violations > 0) areas.push({ weight: violations, text: `safety boundaries: ${violations} violations` });
  return areas
    .sort((a, b) => b.weight - a.weight || a.text.localeCompare(b.text))
    .slice(0, MAX_AREAS)
    .map((area) => area.text);
}

/**
 * human_agreement_rate  of the routings a human judged (resolved, or autonomous with feedback), the share
 *                       where the human agreed with the AI (approved, or confirmed)
 * false_positive_rate   of the escalated routings a human resolved, the share the human approved unchanged:
 *                       the escalation was not needed
 * false_negative_rate   of the autonomous routings, the share later overturned or flagged
 * Rates are null when nothing was there to measure.
 */
export function agentPerformance(current: PeriodInput, previous: PeriodInput): AgentPerformance {
  const now = sumOutcomes(current.by_task_type);
  const before = sumOutcomes(previous.by_task_type);
  return {
    total_requests: now.total,
    successful_resolutions: successes(now),
    escalations_to_human: now.escalated,
    escalation_rate: ratio(now.escalated, now.total) ?? 0,
    avg_confidence: ratio(now.confidence_sum, now.total),
    safety_violations: now.safety_violations + current.safety_checks.violations,
    boundary_checks_passed: now.boundaries_met + current.safety_checks.passed,
    accuracy_metrics: {
      human_agreement_rate: ratio(now.approved + now.confirmed, now.resolved + now.confirmed + now.overturned),
      false_positive_rate: ratio(now.approved, now.resolved),
      false_negative_rate: ratio(now.overturned, now.autonomous),
    },
    performance_trend: performanceTrend(now, before),
    areas_for_improvement: areasForImprovement(current, now),
  };
}

/** `30d`, `12h`, `4w` as seconds; undefined when the text is not a period. */
export function periodSeconds(period: string): number | undefined {
  const match = /^([1-9][0-9]{0,3})([hdw])$/.exec(period);
  if (!match) return undefined;
  const unit = { h: 3600, d: 86_400, w: 604_800 }[match[2] as 'h' | 'd' | 'w'];
  return Number(match[1]) * unit;
}

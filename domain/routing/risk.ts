export const RISK_LEVELS = ['low', 'medium', 'high', 'critical'] as const;
export type RiskLevel = (typeof RISK_LEVELS)[number];

export function riskRank(level: RiskLevel): number {
  return RISK_LEVELS.indexOf(level);
}

export function maxRisk(...levels: RiskLevel[]): RiskLevel {
  return levels.reduce<RiskLevel>((highest, level) => (riskRank(level) > riskRank(highest) ? level : highest), 'low');
}

export function isRiskLevel(value: unknown): value is RiskLevel {
  return typeof value === 'string' && (RISK_LEVELS as readonly string[]).includes(value);
}

/** Amounts at or above these (in the task's own currency) raise the risk; they mirror common approval tiers. */
export const AMOUNT_RISK_TIERS: ReadonlyArray<{ atLeast: number; level: RiskLevel }> = [
  { atLeast: 100_000, level: 'critical' },
  { atLeast: 10_000, level: 'high' },
  { atLeast: 1_000, level: 'medium' },
];

export interface RiskEvaluation {
  level: RiskLevel;
  /** Why the level is what it is, one entry per signal that raised it. */
  factors: string[];
}

/**
 * The task's risk is the highest level any signal supports, so adding information can only raise it:
 * the caller's declared `context.risk_level`, a life-safety flag, the amount at stake, irreversibility,
 * and personal data.
 */
export function evaluateRisk(input: { context: Record<string, unknown>; lifeSafetyFlag: boolean }): RiskEvaluation {
  const factors: string[] = [];
  let level: RiskLevel = 'low';
  const raise = (to: RiskLevel, factor: string) => {
    factors.push(factor);
    level = maxRisk(level, to);
  };

  const declared = input.context.risk_level;
  if (isRiskLevel(declared)) raise(declared, `declared_risk_level:${declared}`);
  if (input.lifeSafetyFlag) raise('critical', 'life_safety_flag');
  const amount = input.context.amount;
  if (typeof amount === 'number' && Number.isFinite(amount)) {
    const tier = AMOUNT_RISK_TIERS.find((t) => Math.abs(amount) >= t.atLeast);
    if (tier) raise(tier.level, `amount_at_least:${tier.atLeast}`);
  }
  if (input.context.irreversible === true) raise('high', 'irreversible_action');
  if (input.context.contains_personal_data === true) raise('medium', 'personal_data');
  return { level, factors };
}

/** Where each level starts on the 0..1 risk score; strictly increasing. Scores below `low` count as low. */
export interface RiskThresholds {
  low: number;
  medium: number;
  high: number;
  critical: number;
}

export const DEFAULT_RISK_THRESHOLDS: RiskThresholds = { low: 0.2, medium: 0.4, high: 0.7, critical: 0.9 };

/**
 * The score each signal supports. With the default thresholds they give the same levels as evaluateRisk,
 * so a domain's thresholds are what make it stricter or laxer: a healthcare domain whose high starts at
 * 0.4 treats personal data (0.45) as high risk.
 */
const DECLARED_SCORE: Record<RiskLevel, number> = { low: 0.2, medium: 0.45, high: 0.75, critical: 0.95 };
const AMOUNT_SCORE: ReadonlyArray<{ atLeast: number; score: number }> = [
  { atLeast: 100_000, score: 0.95 },
  { atLeast: 10_000, score: 0.75 },
  { atLeast: 1_000, score: 0.45 },
];
const IRREVERSIBLE_SCORE = 0.75;
const PERSONAL_DATA_SCORE = 0.45;
const LIFE_SAFETY_SCORE = 1;

export interface RiskAssessment extends RiskEvaluation {
  /** 0..1; the highest any signal supports. */
  score: number;
}

export function levelForScore(score: number, thresholds: RiskThresholds): RiskLevel {
  if (score >= thresholds.critical) return 'critical';
  if (score >= thresholds.high) return 'high';
  if (score >= thresholds.medium) return 'medium';
  return 'low';
}

export function thresholdsIncrease(thresholds: RiskThresholds): boolean {
  const { low, medium, high, critical } = thresholds;
  return low >= 0 && low < medium && medium < high && high < critical && critical <= 1;
}

/**
 * The task's risk as a score, the highest any signal supports (so adding information can only raise it),
 * read as a level through the domain's thresholds. Signals: the declared `context.risk_level`, the
 * life-safety flag, `context.amount`, `context.irreversible` and `context.contains_personal_data`.
 */
export function assessRisk(
  input: { context: Record<string, unknown>; lifeSafetyFlag: boolean },
  thresholds: RiskThresholds,
): RiskAssessment {
  const factors: string[] = [];
  let score = 0;
  const raise = (to: number, factor: string) => {
    factors.push(factor);
    score = Math.max(score, to);
  };
  const declared = input.context.risk_level;
  if (isRiskLevel(declared)) raise(DECLARED_SCORE[declared], `declared_risk_level:${declared}`);
  if (input.lifeSafetyFlag) raise(LIFE_SAFETY_SCORE, 'life_safety_flag');
  const amount = input.context.amount;
  if (typeof amount === 'number' && Number.isFinite(amount)) {
    const tier = AMOUNT_SCORE.find((t) => Math.abs(amount) >= t.atLeast);
    if (tier) raise(tier.score, `amount_at_least:${tier.atLeast}`);
  }
  if (input.context.irreversible === true) raise(IRREVERSIBLE_SCORE, 'irreversible_action');
  if (input.context.contains_personal_data === true) raise(PERSONAL_DATA_SCORE, 'personal_data');
  return { score, level: levelForScore(score, thresholds), factors };
}

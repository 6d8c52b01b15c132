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

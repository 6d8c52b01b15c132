import { riskRank, type RiskLevel } from '../routing/risk';
import { isBlocking, type Violation } from './boundaries';

/**
 * The Rule of Threes: an action should be good for the human it concerns, for humanity, and for the
 * service. Each judgment is true, false, or 'uncertain' when the inputs cannot decide it; the analysis
 * never guesses in the action's favour. The inputs are what the caller states in the task's context and
 * what the safety check found:
 *
 *   context.harm_to_individual     true: the action harms the person it concerns
 *   context.benefit_to_individual  true: it benefits them
 *   context.consent                false: that person withheld consent (context.patient_consent likewise)
 *   context.societal_impact        'positive' | 'neutral' | 'negative'
 *   context.irreversible           true: the action cannot be undone
 */
export type Judgment = boolean | 'uncertain';
export const OVERALL_ASSESSMENTS = ['aligned', 'requires_human_judgment', 'not_aligned'] as const;
export type OverallAssessment = (typeof OVERALL_ASSESSMENTS)[number];

export interface RuleOfThreesAnalysis {
  good_for_human: Judgment;
  good_for_humanity: Judgment;
  good_for_svc: Judgment;
  overall_assessment: OverallAssessment;
}

export interface RuleOfThreesInput {
  context: Record<string, unknown>;
  risk_level: RiskLevel;
  violations: readonly Violation[];
}

/** Harm or withheld consent decide against; a stated benefit decides for; silence decides nothing. */
function forTheHuman(context: Record<string, unknown>): Judgment {
  if (context.harm_to_individual === true || context.consent === false || context.patient_consent === false)
    return false;
  if (context.benefit_to_individual === true) return true;
  return 'uncertain';
}

/**
 * A stated societal impact decides. Without one, a reversible, low-risk action puts nobody beyond its own
 * person at stake, so it is good for humanity; anything weightier stays uncertain.
 */
function forHumanity(context: Record<string, unknown>, risk: RiskLevel): Judgment {
  if (context.societal_impact === 'negative') return false;
  if (context.societal_impact === 'positive' || context.societal_impact === 'neutral') return true;
  if (context.irreversible !== true && risk === 'low') return true;
  return 'uncertain';
}

/**
 * Acting across one of the service's own strict boundaries is not good for the service. Within every
 * boundary and below high risk it is; advisory findings or high risk leave it to a human to judge.
 */
function forTheService(violations: readonly Violation[], risk: RiskLevel): Judgment {
  if (violations.some(isBlocking)) return false;
  if (violations.length === 0 && riskRank(risk) < riskRank('high')) return true;
  return 'uncertain';
}

/** Any false means not aligned; all true means aligned; otherwise a human has to judge. */
export function ruleOfThrees(input: RuleOfThreesInput): RuleOfThreesAnalysis {
  const good_for_human = forTheHuman(input.context);
  const good_for_humanity = forHumanity(input.context, input.risk_level);
  const good_for_svc = forTheService(input.violations, input.risk_level);
  const judgments = [good_for_human, good_for_humanity, good_for_svc];
  const overall_assessment: OverallAssessment = judgments.includes(false)
    ? 'not_aligned'
    : judgments.every((judgment) => judgment === true)
      ? 'aligned'
      : 'requires_human_judgment';
  return { good_for_human, good_for_humanity, good_for_svc, overall_assessment };
}

/** The three judgments the analysis makes, as routing's safety_analysis counts them. */
export const ETHICAL_CONSTRAINTS_CHECKED = 3;

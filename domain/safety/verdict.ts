import type { AgentProfile } from '../agents/agents';
import { assessRisk, riskRank, type RiskAssessment, type RiskLevel } from '../routing/risk';
import { ruleOfThrees, type RuleOfThreesAnalysis } from './rule-of-threes';
import {
  asksConfirmation,
  evaluateBoundaries,
  isBlocking,
  type BoundaryEvaluation,
  type DomainSafetyConfig,
  type SafetyActor,
} from './boundaries';

/**
 * none                the actor may act
 * human_confirmation  the actor may act once a human confirms
 * escalate_to_human   a human must take the action over
 * deny                nobody may take it: a strict boundary that names no escalation
 */
export const REQUIRED_ACTIONS = ['none', 'human_confirmation', 'escalate_to_human', 'deny'] as const;
export type RequiredAction = (typeof REQUIRED_ACTIONS)[number];

export interface SafetyVerdict {
  allowed: boolean;
  required_action: RequiredAction;
}

/**
 * What a safety check concludes. A strict violation forbids the action to this actor (a human takes over,
 * or nobody when the boundary names no escalation); a Rule of Threes judged against the action sends it to
 * a human; advisory findings, the agent's own confirmation constraint, or an ethical judgment left open at
 * high risk ask a human to confirm.
 */
export function safetyVerdict(
  evaluation: BoundaryEvaluation,
  threes: RuleOfThreesAnalysis,
  riskLevel: RiskLevel,
): SafetyVerdict {
  const blocking = evaluation.violations.filter(isBlocking);
  if (blocking.some((violation) => !violation.escalation_required)) return { allowed: false, required_action: 'deny' };
  if (blocking.length > 0 || threes.overall_assessment === 'not_aligned')
    return { allowed: false, required_action: 'escalate_to_human' };
  const openAtHighRisk =
    threes.overall_assessment === 'requires_human_judgment' && riskRank(riskLevel) >= riskRank('high');
  if (evaluation.violations.some(asksConfirmation) || evaluation.confirmation_required || openAtHighRisk)
    return { allowed: true, required_action: 'human_confirmation' };
  return { allowed: true, required_action: 'none' };
}

export const APPROVAL_TIERS = ['none', 'standard', 'senior', 'executive', 'not_permitted'] as const;
export type ApprovalTier = (typeof APPROVAL_TIERS)[number];

const TIER_FOR_RISK: Record<RiskLevel, ApprovalTier> = {
  low: 'standard',
  medium: 'standard',
  high: 'senior',
  critical: 'executive',
};

export interface BoundaryAnswer {
  action_allowed: boolean;
  reason: string;
  human_approval_required: boolean;
  /** Who must approve: none, or standard/senior/executive by risk; not_permitted when nobody may. */
  approval_tier: ApprovalTier;
}

/** GET /boundaries: may the agent take the action alone, and if not, who must approve it. */
export function boundaryAnswer(
  evaluation: BoundaryEvaluation,
  verdict: SafetyVerdict,
  riskLevel: RiskLevel,
): BoundaryAnswer {
  const first = evaluation.violations.find(isBlocking) ?? evaluation.violations.find(asksConfirmation);
  switch (verdict.required_action) {
    case 'none':
      return {
        action_allowed: true,
        reason: 'within_ai_authority',
        human_approval_required: false,
        approval_tier: 'none',
      };
    case 'deny':
      return {
        action_allowed: false,
        reason: first?.reason ?? 'not_permitted',
        human_approval_required: false,
        approval_tier: 'not_permitted',
      };
    default:
      return {
        action_allowed: false,
        reason:
          first?.reason ??
          (evaluation.confirmation_required ? 'agent_requires_human_confirmation' : 'requires_human_judgment'),
        human_approval_required: true,
        approval_tier: TIER_FOR_RISK[riskLevel],
      };
  }
}

export interface ActionAssessment {
  risk: RiskAssessment;
  evaluation: BoundaryEvaluation;
  threes: RuleOfThreesAnalysis;
  verdict: SafetyVerdict;
}

/**
 * The whole safety judgment of one action by one actor in one domain: its risk under the domain's
 * thresholds, the boundaries it crosses, the Rule of Threes, and what that requires.
 */
export function assessAction(input: {
  action: string;
  context: Record<string, unknown>;
  actor: SafetyActor;
  agent: AgentProfile | null;
  config: DomainSafetyConfig;
  domain: string;
}): ActionAssessment {
  const risk = assessRisk(
    { context: input.context, lifeSafetyFlag: input.context.life_safety === true },
    input.config.risk_thresholds,
  );
  const facts = {
    task_type: input.action,
    domain: input.domain,
    risk_level: risk.level,
    ai_confidence: input.actor.confidence ?? 1,
    context: input.context,
  };
  const evaluation = evaluateBoundaries({
    action: input.action,
    context: input.context,
    actor: input.actor,
    agent: input.agent,
    config: input.config,
    facts,
    risk,
  });
  const threes = ruleOfThrees({ context: input.context, risk_level: risk.level, violations: evaluation.violations });
  return { risk, evaluation, threes, verdict: safetyVerdict(evaluation, threes, risk.level) };
}

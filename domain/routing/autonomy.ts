import type { AutonomyProfile } from '../common/organizations';
import type { RiskLevel } from './risk';
import { FOURTH_LAW_THRESHOLD } from './decision';

/** How far an organization lets its agents act alone. */
export interface AutonomyPolicy {
  /** Below this confidence a human takes over (the Fourth Law at this organization). */
  confidence_threshold: number;
  /** From this risk level up, the agent never acts alone: the decision is hybrid at least. */
  hybrid_from_risk: RiskLevel;
}

/** No profile lets an agent act alone below this confidence, whatever else changes. */
export const AUTONOMY_CONFIDENCE_FLOOR = 0.5;

/**
 * balanced is the Fourth Law as the spec states it (0.70; high risk needs a human's confirmation).
 * paranoid hands over below 0.85 and asks a human to confirm from medium risk up, so every high-risk
 * decision is hybrid at least. aggressive hands over only below 0.60 and is otherwise balanced; the floor
 * keeps any later tuning at or above 0.50. Safety boundaries, escalation rules and the caller's own
 * uncertainty threshold apply under every profile.
 */
const POLICIES: Record<AutonomyProfile, AutonomyPolicy> = {
  paranoid: { confidence_threshold: 0.85, hybrid_from_risk: 'medium' },
  balanced: { confidence_threshold: FOURTH_LAW_THRESHOLD, hybrid_from_risk: 'high' },
  aggressive: { confidence_threshold: 0.6, hybrid_from_risk: 'high' },
};

/** The policy of a profile; a routing without one (recorded before tenancy) is balanced. */
export function autonomyPolicy(profile: AutonomyProfile | undefined): AutonomyPolicy {
  const policy = POLICIES[profile ?? 'balanced'];
  return { ...policy, confidence_threshold: Math.max(policy.confidence_threshold, AUTONOMY_CONFIDENCE_FLOOR) };
}

/** What a delegation hands on (capabilities, expiry, environment, risk level), and the rule that a child only narrows it. */
import { riskRank, type RiskLevel } from './capabilities';
import { isPromptScope, promptScopeHeld } from '../prompts/scopes';

/** The bounds a delegation hands on: a child may only narrow each of them. */
export interface DelegationBounds {
  /** Capabilities and prompt grants. */
  capabilities: readonly string[];
  /** Epoch seconds. */
  expires_at: number;
  /** Null: any environment. */
  environment: string | null;
  risk_level: RiskLevel;
}

export type Widening =
  | { field: 'capabilities'; not_held: string[] }
  | { field: 'duration_seconds'; parent_expires_at: number }
  | { field: 'environment'; parent: string }
  | { field: 'risk_level'; parent: RiskLevel };

/** Whether a parent holding `held` covers `grant`: a capability by name, a prompt grant by a pattern that covers it (prompt:read:support-* covers prompt:read:support-billing). */
function holdsGrant(held: readonly string[], grant: string): boolean {
  return isPromptScope(grant) ? promptScopeHeld(held, grant) : held.includes(grant);
}

/** Every way `child` would hold more than `parent`; empty when it only narrows. */
export function wideningOf(parent: DelegationBounds, child: DelegationBounds): Widening[] {
  const widenings: Widening[] = [];
  const notHeld = child.capabilities.filter((grant) => !holdsGrant(parent.capabilities, grant));
  if (notHeld.length > 0) widenings.push({ field: 'capabilities', not_held: notHeld });
  if (child.expires_at > parent.expires_at)
    widenings.push({ field: 'duration_seconds', parent_expires_at: parent.expires_at });
  if (parent.environment !== null && child.environment !== parent.environment)
    widenings.push({ field: 'environment', parent: parent.environment });
  if (riskRank(child.risk_level) > riskRank(parent.risk_level))
    widenings.push({ field: 'risk_level', parent: parent.risk_level });
  return widenings;
}

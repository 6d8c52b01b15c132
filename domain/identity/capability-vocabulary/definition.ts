/** What every capability of the vocabulary states: its risk and the older scope that implies it. */
export const RISK_LEVELS = ['low', 'standard', 'high'] as const;
export type RiskLevel = (typeof RISK_LEVELS)[number];

/** The scopes of access tokens, PATs and service accounts (services/identity/scopes.ts), which keep working. */
export type LegacyScope =
  | 'orch:read'
  | 'orch:write'
  | 'orch:admin'
  | 'audit:read'
  | 'platform:read'
  | 'platform:write'
  | 'platform:admin'
  | 'people:enroll'
  | 'orch:agent'
  | 'cloud:admin:global';

export interface CapabilityDefinition {
  description: string;
  /** A token whose risk_level is below this may not use the capability. */
  risk: RiskLevel;
  /** The scope whose holder is granted this capability: the scope that guarded its operations before capabilities. */
  implied_by: LegacyScope;
}

/**
 * Every resource belongs to one organization. Rows written before tenancy existed, and callers whose
 * credential names no organization, belong to the default one, created by the identity migration.
 */
export const DEFAULT_ORGANIZATION_ID = 'org_default';
export const DEFAULT_ORGANIZATION_DID = 'did:web:localhost:orgs:default';

export const DEPLOYMENT_MODES = ['cloud', 'self_hosted', 'hybrid'] as const;
export type DeploymentMode = (typeof DEPLOYMENT_MODES)[number];

export const AUTONOMY_PROFILES = ['paranoid', 'balanced', 'aggressive'] as const;
export type AutonomyProfile = (typeof AUTONOMY_PROFILES)[number];

export const DATA_RESIDENCY_TIERS = ['local_only', 'regional', 'global'] as const;
export type DataResidencyTier = (typeof DATA_RESIDENCY_TIERS)[number];

export const PASSPORT_TYPES = ['individual', 'organization', 'agent'] as const;
export type PassportType = (typeof PASSPORT_TYPES)[number];

/**
 * Marketplace assets and their review, decided here without I/O: the enumerations, the manifest's JSON
 * Schema and limits, the scopes a manifest may declare, and the rules that conclude a review and give an
 * approved asset its trust tier (docs/marketplace.md, “Assets and their review”).
 */
import { CAPABILITIES, type CapabilityDefinition } from '../identity/capabilities';

export const ASSET_TYPES = ['connector', 'agent', 'workflow', 'capability', 'workforce', 'dataset', 'muscle'] as const;
export type AssetType = (typeof ASSET_TYPES)[number];
export const ASSET_VISIBILITIES = ['org_private', 'org_internal', 'global'] as const;
export type AssetVisibility = (typeof ASSET_VISIBILITIES)[number];
export const LIFECYCLE_STAGES = ['dev', 'staging', 'production'] as const;
export const REVIEW_STATUSES = ['pending', 'approved', 'rejected'] as const;
export type ReviewStatus = (typeof REVIEW_STATUSES)[number];
export const TRUST_TIERS = ['community', 'verified', 'certified', 'enterprise'] as const;
export type TrustTier = (typeof TRUST_TIERS)[number];

/** The largest manifest the review accepts (its canonical JSON, in bytes), and its longest description. */
export const MANIFEST_MAX_BYTES = 64 * 1024;
export const MANIFEST_MAX_SCOPES = 50;

/** The JWS typ of a manifest's provenance signature. */
export const MANIFEST_SIGNATURE_TYP = 'asset-manifest+jwt';

/**
 * The scopes a manifest may ask an installer for: a capability of this deployment's catalog whose risk is low
 * or standard, or a prompt read grant (`prompt:read:<key>`). A high-risk capability (administration, grants,
 * key changes, anything `implied_by` an admin scope) and an unknown name are refused.
 */
export function scopeAllowed(scope: string): boolean {
  if (/^prompt:read:[A-Za-z0-9._*/-]+$/.test(scope)) return true;
  const definition = (CAPABILITIES as Record<string, CapabilityDefinition>)[scope];
  return definition !== undefined && definition.risk !== 'high';
}

/** The manifest's JSON Schema (draft-07), checked with ajv by the review's first step. */
export const MANIFEST_SCHEMA = {
  type: 'object',
  required: ['name', 'version', 'description', 'provenance', 'capabilities'],
  properties: {
    name: { type: 'string', minLength: 1, maxLength: 200 },
    version: { type: 'string', minLength: 1, maxLength: 100 },
    description: { type: 'string', minLength: 1, maxLength: 5000 },
    provenance: {
      type: 'object',
      required: ['source', 'publishedBy', 'signature'],
      properties: {
        source: { type: 'string', minLength: 1, maxLength: 2000 },
        publishedBy: { type: 'string', pattern: '^did:[a-z0-9]+:.+$', maxLength: 500 },
        signature: { type: 'string', minLength: 1, maxLength: 10000 },
      },
      additionalProperties: false,
    },
    capabilities: {
      type: 'object',
      required: ['required_scopes'],
      properties: {
        required_scopes: {
          type: 'array',
          items: { type: 'string', minLength: 1, maxLength: 200 },
          maxItems: MANIFEST_MAX_SCOPES,
          uniqueItems: true,
        },
      },
    },
  },
} as const;

/** Semantic Versioning 2.0.0 (the specification's own regular expression). */
const SEMVER =
  /^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-((?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*)(?:\.(?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*))*))?(?:\+([0-9a-zA-Z-]+(?:\.[0-9a-zA-Z-]+)*))?$/;

export function isSemver(version: string): boolean {
  return SEMVER.test(version);
}

/** One step of the review, as the asset records it and its provenance says. */
export interface ReviewCheck {
  check: 'manifest' | 'provenance';
  passed: boolean;
  reasons: string[];
}

/** What the review knows of the publisher once its signature verified; none when it did not. */
export interface PublisherFacts {
  /** The publisher's Passport's identity tier (1: linked to its organization by e-mail; 2: an attested skill). */
  identity_tier: number;
  type: 'individual' | 'organization' | 'agent';
  /** Whether the publisher's Passport belongs to the organization that submitted the asset. */
  same_organization: boolean;
}

/**
 * The trust tier of an approved asset, by the publisher the signature proved:
 * - enterprise: the submitting organization's own organization Passport signed it;
 * - certified: a Passport with an attested skill (identity tier 2 or more);
 * - verified: a Passport linked to its organization by a verified e-mail (identity tier 1);
 * - community: any other Passport whose signature verified.
 */
export function trustTierOf(publisher: PublisherFacts): TrustTier {
  if (publisher.type === 'organization' && publisher.same_organization) return 'enterprise';
  if (publisher.identity_tier >= 2) return 'certified';
  if (publisher.identity_tier >= 1) return 'verified';
  return 'community';
}

/** Concludes a review: approved when every check passed (with the publisher's tier), else rejected with every reason. */
export function reviewConclusion(
  checks: readonly ReviewCheck[],
  publisher: PublisherFacts | undefined,
): { review_status: 'approved' | 'rejected'; trust_tier: TrustTier | null; reasons: string[] } {
  const reasons = checks.flatMap((check) => check.reasons.map((reason) => `${check.check}: ${reason}`));
  if (reasons.length > 0 || checks.some((check) => !check.passed) || !publisher)
    return { review_status: 'rejected', trust_tier: null, reasons };
  return { review_status: 'approved', trust_tier: trustTierOf(publisher), reasons: [] };
}

/** Who may see an asset: its organization sees its own (a pending or rejected one too); others only approved global ones. */
export function assetVisibleTo(
  asset: { organization_id: string; visibility: AssetVisibility; review_status: ReviewStatus; publisher_id: string },
  caller: { organization_id: string; id: string; administers: boolean },
): boolean {
  if (asset.organization_id !== caller.organization_id)
    return asset.visibility === 'global' && asset.review_status === 'approved';
  if (asset.visibility !== 'org_private') return true;
  return asset.publisher_id === caller.id || caller.administers;
}

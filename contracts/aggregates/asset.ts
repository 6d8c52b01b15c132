import { z } from 'zod';
import {
  ASSET_TYPES,
  ASSET_VISIBILITIES,
  LIFECYCLE_STAGES,
  REVIEW_STATUSES,
  TRUST_TIERS,
} from '../../domain/marketplace/assets';

/** One step of an asset's review: the manifest's checks, or its provenance signature's. */
export const AssetReviewCheck = z.object({
  check: z.enum(['manifest', 'provenance']),
  passed: z.boolean(),
  reasons: z.array(z.string()),
});

/**
 * A marketplace asset: submitted pending by POST /v1/marketplace/assets, then approved or rejected (with the
 * reasons) by reviewAssetWorkflow, whose id is `asset-review:<asset_id>`. Stored by db/assets.ts; the view,
 * the row and the OpenAPI component come from this schema.
 */
export const Asset = z
  .object({
    asset_id: z.string().meta({ description: 'ast_…' }),
    organization_id: z.string(),
    name: z.string(),
    version: z.string().optional().meta({ description: 'The manifest’s version (semver); unset when it has none' }),
    asset_type: z.enum(ASSET_TYPES),
    publisher_id: z.string().meta({ description: 'The principal that submitted the asset' }),
    publisher_did: z
      .string()
      .optional()
      .meta({ description: 'The DID whose signature the review verified (the manifest’s provenance.publishedBy)' }),
    review_status: z.enum(REVIEW_STATUSES),
    review_reasons: z.array(z.string()).meta({ description: 'Why the review rejected the asset; empty otherwise' }),
    review_checks: z.array(AssetReviewCheck).meta({ description: 'Each step of the review, in order' }),
    trust_tier: z.enum(TRUST_TIERS).optional().meta({ description: 'Given on approval (docs/marketplace.md)' }),
    lifecycle_stage: z.enum(LIFECYCLE_STAGES),
    visibility: z.enum(ASSET_VISIBILITIES),
    manifest: z.record(z.string(), z.unknown()),
    created_at: z.iso.datetime(),
    reviewed_at: z.iso.datetime().optional(),
    updated_at: z.iso.datetime(),
  })
  .meta({ description: 'A marketplace asset and its review' });
export type Asset = z.infer<typeof Asset>;

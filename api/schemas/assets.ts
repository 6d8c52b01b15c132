import { Asset } from '../../contracts/aggregates/asset';
import {
  ASSET_TYPES,
  ASSET_VISIBILITIES,
  LIFECYCLE_STAGES,
  MANIFEST_MAX_BYTES,
  TRUST_TIERS,
} from '../../domain/marketplace/assets';
import { viewOf } from '../../lib/shape';
import { listQuerySchema } from './common';
import { z } from './zod';

/** The spec's asset with the review's reasons and checks beside it; install_count is counted (no asset install exists yet). */
export const asset = viewOf(Asset, { rename: { asset_id: 'id' }, hide: ['organization_id'] });
export const AssetSchema = asset.schema
  .extend({ install_count: z.number().int().openapi({ description: 'Installations of the asset: none exist yet' }) })
  .openapi('MarketplaceAsset');

export function assetView(value: Asset): z.output<typeof AssetSchema> {
  return { ...asset.of(value), install_count: 0 };
}

export const SubmitAssetSchema = z
  .strictObject({
    name: z.string().min(1).max(200),
    asset_type: z.enum(ASSET_TYPES),
    visibility: z
      .enum(ASSET_VISIBILITIES)
      .default('org_private')
      .openapi({
        description:
          'org_private: the submitter and the organization’s administrators; org_internal: every member of the organization; ' +
          'global: every caller once approved',
      }),
    lifecycle_stage: z.enum(LIFECYCLE_STAGES).default('production'),
    manifest: z.record(z.string(), z.unknown()).openapi({
      description:
        `name, version (semver), description, provenance {source, publishedBy (DID), signature (a JWS of typ asset-manifest+jwt ` +
        `by a key publishedBy’s DID document lists, over manifest_sha256)}, capabilities {required_scopes}; at most ` +
        `${MANIFEST_MAX_BYTES} bytes. Checked by the review, not here: a manifest that fails is rejected with its reasons`,
    }),
  })
  .openapi('SubmitAssetRequest');

export const ListAssetsQuerySchema = listQuerySchema.extend({
  assetType: z.enum(ASSET_TYPES).optional(),
  trustTier: z.enum(TRUST_TIERS).optional(),
});

export const AssetIdParamsSchema = z.object({ asset_id: z.string().min(1).max(100) });

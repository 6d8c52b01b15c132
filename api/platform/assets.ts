import { findVisibleAsset, listVisibleAssets, assetFromRow } from '../../db/assets';
import { submitAsset, viewerOf, type AssetDeps } from '../../services/assets/assets';
import type { ApiBuilder } from '../route';
import { routeGroup } from '../route-group';
import {
  AssetIdParamsSchema,
  AssetSchema,
  assetView,
  ListAssetsQuerySchema,
  SubmitAssetSchema,
} from '../schemas/assets';

/** Marketplace assets: submit one (its review runs as a workflow), list and read those the caller may see. */
export function registerAssetRoutes(api: ApiBuilder, deps: AssetDeps): void {
  const assets = routeGroup(api, { tags: ['Marketplace'], auth: 'platform:write', rateLimit: 'default' });
  assets.route({
    method: 'post',
    path: '/v1/marketplace/assets',
    operationId: 'submitAsset',
    summary: 'Submit an asset to the marketplace',
    description:
      'Stored pending; its review (reviewAssetWorkflow) checks the manifest against its JSON Schema, its size, its version (semver) ' +
      'and declared scopes (capabilities of low or standard risk), then verifies provenance.signature against publishedBy’s DID ' +
      'document. It ends approved with a trust tier, or rejected with review_reasons; each step is in review_checks and the ' +
      'asset’s provenance. Read the asset to follow it.',
    request: { body: SubmitAssetSchema },
    responses: {
      201: {
        description: 'The asset, pending review',
        schema: AssetSchema,
        headers: { Location: { description: 'The asset’s URL' } },
      },
    },
    handler: async ({ req, body, principal }) => {
      const stored = await submitAsset(deps, principal, body, req.get('idempotency-key'));
      return {
        status: 201,
        body: assetView(stored),
        headers: { Location: `/v1/marketplace/assets/${stored.asset_id}` },
      };
    },
  });

  assets.list({
    path: '/v1/marketplace/assets',
    operationId: 'listAssets',
    summary: 'List the marketplace assets you may see',
    description:
      'Your organization’s assets (org_private ones only to their submitter and the organization’s administrators, pending and ' +
      'rejected ones included) and every other organization’s approved global assets; newest first.',
    auth: 'platform:read',
    query: ListAssetsQuerySchema,
    page: { description: 'A page of assets', item: AssetSchema, name: 'MarketplaceAssetPage' },
    sort: { allowed: { created_at: 'created_at' }, fallback: '-created_at', uniqueKey: 'asset_id' },
    list: ({ query, principal, page }) =>
      listVisibleAssets(deps.db, viewerOf(principal), page, {
        asset_type: query.assetType,
        trust_tier: query.trustTier,
      }),
    view: (row) => assetView(assetFromRow(row)),
  });

  assets.get({
    path: '/v1/marketplace/assets/{asset_id}',
    operationId: 'getAsset',
    summary: 'Read an asset and its review',
    auth: 'platform:read',
    params: AssetIdParamsSchema,
    found: { description: 'The asset', schema: AssetSchema },
    missing: { code: 'asset_not_found', detail: ({ params }) => `No asset ${params.asset_id} you may see` },
    find: ({ params, principal }) => findVisibleAsset(deps.db, viewerOf(principal), params.asset_id),
    view: assetView,
  });
}

import type { Client } from '@temporalio/client';
import type { Knex } from 'knex';
import type { Asset } from '../../contracts/aggregates/asset';
import { REVIEW_ASSET_WORKFLOW, reviewWorkflowId, type ReviewAssetInput } from '../../contracts/review-asset';
import { insertAsset, type AssetViewer } from '../../db/assets';
import { appendProvenance } from '../../db/ledger';
import { insertPendingStart } from '../../db/workflow-starts';
import type { AssetType, AssetVisibility } from '../../domain/marketplace/assets';
import { assetRecord } from '../../domain/marketplace/asset-steps';
import { resourceId } from '../../lib/ids';
import { actorOf } from '../identity/passports/passports';
import { grants, type Principal } from '../identity/scopes';
import { startAfterCommit } from '../workflow-starts/starts';

export interface AssetDeps {
  db: Knex;
  temporal: Client;
  taskQueue: string;
}

/** How long one step of a review may take before it is retried. */
export const REVIEW_STEP_TIMEOUT_MS = 30_000;

export interface NewAsset {
  name: string;
  asset_type: AssetType;
  visibility: AssetVisibility;
  lifecycle_stage: Asset['lifecycle_stage'];
  manifest: Record<string, unknown>;
}

/** Whom the caller is to the visibility rules: its organization, itself, and whether it administers it. */
export function viewerOf(principal: Principal): AssetViewer {
  return {
    organization_id: principal.organization_id,
    id: principal.id,
    administers: grants(principal.scopes, 'platform:admin'),
  };
}

/**
 * Submits an asset: it is stored pending, with its submission's record and event and its review's start in
 * one transaction; the caller has its answer at commit and the review starts behind it (the dispatcher's
 * sweep starts it should this process stop first). A retry with the same Idempotency-Key finds the first.
 */
export async function submitAsset(
  deps: AssetDeps,
  principal: Principal,
  body: NewAsset,
  idempotencyKey?: string,
): Promise<Asset> {
  const now = new Date().toISOString();
  const version = typeof body.manifest.version === 'string' ? body.manifest.version.slice(0, 100) : undefined;
  const asset: Asset = {
    asset_id: resourceId('ast', principal.id, idempotencyKey),
    organization_id: principal.organization_id,
    name: body.name,
    ...(version !== undefined ? { version } : {}),
    asset_type: body.asset_type,
    publisher_id: principal.id,
    review_status: 'pending',
    review_reasons: [],
    review_checks: [],
    lifecycle_stage: body.lifecycle_stage,
    visibility: body.visibility,
    manifest: body.manifest,
    created_at: now,
    updated_at: now,
  };
  const input: ReviewAssetInput = { asset_id: asset.asset_id, step_timeout_ms: REVIEW_STEP_TIMEOUT_MS };
  const start = {
    workflow_id: reviewWorkflowId(asset.asset_id),
    workflow_type: REVIEW_ASSET_WORKFLOW,
    task_queue: deps.taskQueue,
    args: [input],
    search_attributes: [],
  };
  const stored = await deps.db.transaction(async (trx) => {
    const inserted = await insertAsset(trx, asset);
    await appendProvenance(
      trx,
      assetRecord(inserted, 'submitted', now, {
        actor: actorOf(principal),
        output: {
          visibility: inserted.visibility,
          lifecycle_stage: inserted.lifecycle_stage,
          version: version ?? null,
        },
        event: 'asset.submitted',
      }),
    );
    await insertPendingStart(trx, start);
    return inserted;
  });
  startAfterCommit(deps, start);
  return stored;
}

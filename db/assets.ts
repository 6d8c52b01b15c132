import type { Knex } from 'knex';
import { Asset } from '../contracts/aggregates/asset';
import type { AssetType, TrustTier } from '../domain/marketplace/assets';
import { rowOf } from '../lib/shape';
import { paginate, type Page, type PageRequest } from './pagination';

/** The marketplace_assets row as Postgres returns it: instants as Date, JSON parsed, unset fields null. */
export type AssetRow = Omit<
  Asset,
  'created_at' | 'reviewed_at' | 'updated_at' | 'version' | 'publisher_did' | 'trust_tier'
> & {
  version: string | null;
  publisher_did: string | null;
  trust_tier: TrustTier | null;
  created_at: Date;
  reviewed_at: Date | null;
  updated_at: Date;
};

const assetRow = rowOf(Asset).of;

export function assetFromRow(row: AssetRow): Asset {
  return {
    ...row,
    version: row.version ?? undefined,
    publisher_did: row.publisher_did ?? undefined,
    trust_tier: row.trust_tier ?? undefined,
    created_at: row.created_at.toISOString(),
    reviewed_at: row.reviewed_at?.toISOString() ?? undefined,
    updated_at: row.updated_at.toISOString(),
  };
}

/** Stores a submission once: a retry with the same id (the same Idempotency-Key) finds the first. */
export async function insertAsset(db: Knex, asset: Asset): Promise<Asset> {
  await db('marketplace_assets').insert(assetRow(asset)).onConflict('asset_id').ignore();
  const stored = await findOwnAsset(db, asset.organization_id, asset.asset_id);
  if (!stored) throw new Error(`Asset ${asset.asset_id} was stored but has no row in its organization`);
  return stored;
}

/** An asset of the organization, whatever its visibility or review (the review's own read). */
export async function findOwnAsset(db: Knex, organizationId: string, assetId: string): Promise<Asset | undefined> {
  const row = await db<AssetRow>('marketplace_assets')
    .where({ organization_id: organizationId, asset_id: assetId })
    .first();
  return row ? assetFromRow(row) : undefined;
}

export interface AssetViewer {
  organization_id: string;
  /** The principal's id: the submitter of an org_private asset sees it. */
  id: string;
  /** Holds the organization's administration (platform:admin): sees its org_private assets. */
  administers: boolean;
}

/** Only the assets this caller may see (domain/marketplace/assets.ts assetVisibleTo, as SQL). */
function visibleTo(query: Knex.QueryBuilder, viewer: AssetViewer): void {
  query.where((visible) => {
    visible
      .where((own) => {
        own.where('organization_id', viewer.organization_id);
        if (!viewer.administers)
          own.where((seen) => seen.whereNot('visibility', 'org_private').orWhere('publisher_id', viewer.id));
      })
      .orWhere((shared) => shared.where({ visibility: 'global', review_status: 'approved' }));
  });
}

export async function findVisibleAsset(db: Knex, viewer: AssetViewer, assetId: string): Promise<Asset | undefined> {
  const query = db<AssetRow>('marketplace_assets').where({ asset_id: assetId });
  visibleTo(query, viewer);
  const row = await query.first<AssetRow | undefined>();
  return row ? assetFromRow(row) : undefined;
}

export function listVisibleAssets(
  db: Knex,
  viewer: AssetViewer,
  page: PageRequest,
  filters: { asset_type?: AssetType | undefined; trust_tier?: TrustTier | undefined },
): Promise<Page<AssetRow>> {
  const query = db<AssetRow>('marketplace_assets').select('*');
  visibleTo(query, viewer);
  if (filters.asset_type) query.where('asset_type', filters.asset_type);
  if (filters.trust_tier) query.where('trust_tier', filters.trust_tier);
  return paginate<AssetRow>(query, page);
}

/** Records one step of the review; a step recorded already (an activity's retry) is replaced by the same outcome. */
export async function recordReviewCheck(
  db: Knex,
  assetId: string,
  check: Asset['review_checks'][number],
): Promise<void> {
  await db.raw(
    `update marketplace_assets
        set review_checks = (select coalesce(jsonb_agg(c), '[]'::jsonb) from jsonb_array_elements(review_checks) c
                              where c->>'check' <> ?) || jsonb_build_array(?::jsonb),
            updated_at = now()
      where asset_id = ? and review_status = 'pending'`,
    [check.check, JSON.stringify(check), assetId],
  );
}

/** Concludes a pending review, once: a review concluded already is left as it is (false). */
export async function concludeReview(
  db: Knex,
  assetId: string,
  conclusion: {
    review_status: 'approved' | 'rejected';
    trust_tier: TrustTier | null;
    reasons: string[];
    publisher_did: string | null;
  },
): Promise<boolean> {
  const changed = await db('marketplace_assets')
    .where({ asset_id: assetId, review_status: 'pending' })
    .update({
      review_status: conclusion.review_status,
      trust_tier: conclusion.trust_tier,
      review_reasons: JSON.stringify(conclusion.reasons),
      publisher_did: conclusion.publisher_did,
      reviewed_at: db.fn.now(),
      updated_at: db.fn.now(),
    });
  return changed === 1;
}

export async function findAssetForReview(db: Knex, assetId: string): Promise<Asset | undefined> {
  const row = await db<AssetRow>('marketplace_assets').where({ asset_id: assetId }).first();
  return row ? assetFromRow(row) : undefined;
}

/** What the review's trust rules read of the Passport whose signature verified. */
export async function findPublisherPassport(
  db: Knex,
  passportId: string,
): Promise<
  { type: 'individual' | 'organization' | 'agent'; organization_id: string; identity_tier: number } | undefined
> {
  return db('passports')
    .select('type', 'organization_id', 'identity_tier')
    .where({ passport_id: passportId })
    .first<
      { type: 'individual' | 'organization' | 'agent'; organization_id: string; identity_tier: number } | undefined
    >();
}

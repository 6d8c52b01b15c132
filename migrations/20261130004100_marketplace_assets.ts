import type { Knex } from 'knex';

/**
 * Marketplace assets and their review (contracts/aggregates/asset.ts): one row per submission, written
 * pending by POST /v1/marketplace/assets and concluded (approved or rejected, with the reasons and each
 * check's outcome) by reviewAssetWorkflow.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    create table marketplace_assets (
      asset_id text primary key,
      organization_id text not null,
      name text not null,
      version text,
      asset_type text not null,
      publisher_id text not null,
      publisher_did text,
      review_status text not null,
      review_reasons jsonb not null default '[]'::jsonb,
      review_checks jsonb not null default '[]'::jsonb,
      trust_tier text,
      lifecycle_stage text not null,
      visibility text not null,
      manifest jsonb not null,
      created_at timestamptz not null,
      reviewed_at timestamptz,
      updated_at timestamptz not null
    )`);
  // The list: newest first, by type and tier; global approved assets are read across organizations.
  await knex.raw(
    'create index marketplace_assets_org on marketplace_assets (organization_id, created_at desc, asset_id desc)',
  );
  await knex.raw(
    `create index marketplace_assets_global on marketplace_assets (created_at desc, asset_id desc)
       where visibility = 'global' and review_status = 'approved'`,
  );
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('drop table if exists marketplace_assets');
}

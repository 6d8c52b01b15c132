import type { Knex } from 'knex';

/**
 * Connector ratings (services/connectors/ratings.ts): one per installation, replaced when its organization
 * rates again. The catalog's rating_average and rating_count are computed from these rows.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    create table connector_ratings (
      rating_id text primary key,
      installation_id text not null unique references connector_installations (installation_id),
      organization_id text not null,
      connector_id text not null references marketplace_connectors (connector_id),
      rating smallint not null check (rating between 1 and 5),
      review_text text check (char_length(review_text) <= 2000),
      user_id text not null,
      display_name text not null,
      created_at timestamptz not null,
      updated_at timestamptz not null
    )`);
  await knex.raw(
    'create index connector_ratings_connector on connector_ratings (connector_id, updated_at desc, rating_id desc)',
  );
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('drop table if exists connector_ratings');
}

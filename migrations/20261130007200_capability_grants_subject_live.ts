import type { Knex } from 'knex';

/**
 * A reviewer's capabilities (db/reviewers.ts, derived from their live grants) read by subject: what the
 * derivation reads is carried by the index, so routing's load reads no heap once the table is vacuumed
 * (EXPLAIN: an index scan of capability_grants_subject and 50 heap rows a reviewer before).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    create index capability_grants_subject_live on capability_grants (organization_id, subject_did)
      include (subject_type, capability_name, weight, expires_at) where revoked_at is null
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('drop index capability_grants_subject_live');
}

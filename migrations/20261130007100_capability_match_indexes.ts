import type { Knex } from 'knex';

/**
 * The matcher's statements at size (npm run bench -- capabilities; EXPLAIN findings in the commit):
 * - capability_definitions_implies is read on every match and written rarely, so its GIN pending list is
 *   turned off: with fastupdate every `implies ? name` probe re-read the whole unmerged list (37 pages,
 *   11,000 tuples after seeding 10,000 definitions, ~1 ms a probe) until a vacuum merged it.
 * - the live grants of a capability carry what the matcher reads of them, so the scan needs no heap visit
 *   once the table is vacuumed (an index-only scan); the key is unchanged, so its other readers keep it.
 * - an agent's load (queued or processing executions) was counted on executions_agent_id_index across every
 *   organization and status.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    alter index capability_definitions_implies set (fastupdate = off);
    select gin_clean_pending_list('capability_definitions_implies'::regclass);
    drop index capability_grants_live;
    create index capability_grants_live on capability_grants (organization_id, capability_name)
      include (subject_type, subject_did, weight, expires_at, grant_id) where revoked_at is null;
    create index executions_agent_open on executions (organization_id, agent_id)
      where status in ('queued', 'processing');
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`
    drop index executions_agent_open;
    drop index capability_grants_live;
    create index capability_grants_live on capability_grants (organization_id, capability_name) where revoked_at is null;
    alter index capability_definitions_implies reset (fastupdate);
  `);
}

import type { Knex } from 'knex';

/** Literal, not imported: this migration keeps meaning what it meant when it first ran. */
const DEFAULT_ORGANIZATION_ID = 'org_default';

/**
 * Two tables keyed by values that are unique only within an organization get the organization beside them:
 * agent deployments (by an agent's org/name, which any organization could write) and reviewer assignments (by
 * reviewer DID, unique per organization only). Each is backfilled from the row it belongs to: a deployment's
 * deployed agent version, an assignment's routing.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    alter table platform_agent_deployments add column organization_id text references organizations (organization_id);
    update platform_agent_deployments d set organization_id = a.organization_id from platform_agents a where a.agent_id = d.agent_id;
    alter table platform_agent_deployments alter column organization_id set not null;
    create index platform_agent_deployments_current on platform_agent_deployments (organization_id, org, name, environment, deployed_at);

    alter table reviewer_assignments add column organization_id text references organizations (organization_id);
    update reviewer_assignments a set organization_id = r.organization_id from routings r where r.routing_id = a.routing_id;
    update reviewer_assignments set organization_id = '${DEFAULT_ORGANIZATION_ID}' where organization_id is null;
    alter table reviewer_assignments alter column organization_id set not null;
    drop index reviewer_assignments_open;
    create index reviewer_assignments_open on reviewer_assignments (organization_id, reviewer_did) where released_at is null;
  `);
  await knex.schema.alterTable('platform_agent_deployments', (t) =>
    t.dropIndex(['org', 'name', 'environment', 'deployed_at']),
  );
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('platform_agent_deployments', (t) =>
    t.index(['org', 'name', 'environment', 'deployed_at']),
  );
  await knex.raw(`
    drop index reviewer_assignments_open;
    create index reviewer_assignments_open on reviewer_assignments (reviewer_did) where released_at is null;
    alter table reviewer_assignments drop column organization_id;
    drop index platform_agent_deployments_current;
    alter table platform_agent_deployments drop column organization_id;
  `);
}

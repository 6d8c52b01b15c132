import type { Knex } from 'knex';

/**
 * Agent deployments, keyed by an agent's org/name (which any organization could write), get the organization
 * beside them, backfilled from the deployed agent version's.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    alter table platform_agent_deployments add column organization_id text references organizations (organization_id);
    update platform_agent_deployments d set organization_id = a.organization_id from platform_agents a where a.agent_id = d.agent_id;
    alter table platform_agent_deployments alter column organization_id set not null;
    create index platform_agent_deployments_current on platform_agent_deployments (organization_id, org, name, environment, deployed_at);
  `);
  await knex.schema.alterTable('platform_agent_deployments', (t) => t.dropIndex(['org', 'name', 'environment', 'deployed_at']));
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('platform_agent_deployments', (t) => t.index(['org', 'name', 'environment', 'deployed_at']));
  await knex.raw(`
    drop index platform_agent_deployments_current;
    alter table platform_agent_deployments drop column organization_id;
  `);
}

import type { Knex } from 'knex';

/** Literal, not imported: this migration keeps meaning what it meant when it first ran. */
const DEFAULT_ORGANIZATION_ID = 'org_default';

/** The platform's tables whose every write now names its organization. */
const NOW_STRICT = [
  'platform_agents',
  'callback_signing_secrets',
  'executions',
  'platform_workflows',
  'platform_tasks',
  'compliance_reports',
] as const;

/**
 * The platform API's writes carry the caller's organization now, so its tables lose the default: a write
 * that forgets its tenant fails instead of landing in the default organization. Lists and lookups filter
 * by organization, so the indexes lead with it.
 */
export async function up(knex: Knex): Promise<void> {
  for (const table of NOW_STRICT) await knex.raw('alter table ?? alter column organization_id drop default', [table]);
  await knex.raw(`
    create index platform_agents_organization_created on platform_agents (organization_id, created_at, agent_id);
    create index callback_signing_secrets_organization_principal on callback_signing_secrets (organization_id, principal);
    create index compliance_reports_organization on compliance_reports (organization_id, report_id);
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`
    drop index compliance_reports_organization;
    drop index callback_signing_secrets_organization_principal;
    drop index platform_agents_organization_created;
  `);
  for (const table of NOW_STRICT)
    await knex.raw(`alter table ?? alter column organization_id set default '${DEFAULT_ORGANIZATION_ID}'`, [table]);
}

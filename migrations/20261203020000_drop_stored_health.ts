import type { Knex } from 'knex';

/**
 * Connector and installation health are read from the calls installations record (domain/marketplace/health.ts);
 * the stored columns were fixed values nothing updated, and nothing reads them.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw('alter table marketplace_connectors drop column health_status, drop column last_health_check_at');
  await knex.raw('alter table connector_installations drop column health_status');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(
    "alter table marketplace_connectors add column health_status text not null default 'healthy', add column last_health_check_at timestamptz",
  );
  await knex.raw("alter table connector_installations add column health_status text not null default 'healthy'");
}

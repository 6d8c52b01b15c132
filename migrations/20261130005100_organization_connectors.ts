import type { Knex } from 'knex';

/** An organization's own connectors (contracts/aggregates/organization-connector.ts): a name, a type, its configuration. */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('organization_connectors', (t) => {
    t.text('connector_id').primary();
    t.text('organization_id').notNullable();
    t.text('name').notNullable();
    t.text('connector_type').notNullable();
    t.jsonb('configuration').notNullable();
    t.jsonb('capabilities').notNullable();
    t.text('status').notNullable();
    t.text('installation_id');
    t.text('created_by').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable();
    t.timestamp('updated_at', { useTz: true }).notNullable();
    // One connector of a name per organization; the list pages by organization and creation.
    t.unique(['organization_id', 'name']);
    t.index(['organization_id', 'created_at']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('organization_connectors');
}

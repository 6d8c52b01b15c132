import type { Knex } from 'knex';

/** Covers: a person's approvals handed to a colleague for a window (contracts/aggregates/cover.ts). */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('covers', (t) => {
    t.text('cover_id').primary();
    t.text('organization_id').notNullable();
    t.text('covered_did').notNullable();
    t.text('covering_did').notNullable();
    t.timestamp('starts_at', { useTz: true }).notNullable();
    t.timestamp('ends_at', { useTz: true }).notNullable();
    t.text('reason');
    t.text('created_by').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable();
    t.timestamp('ended_at', { useTz: true });
    // The lookup at each request's opening: a named person's covers, by organization and window.
    t.index(['organization_id', 'covered_did', 'ends_at']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('covers');
}

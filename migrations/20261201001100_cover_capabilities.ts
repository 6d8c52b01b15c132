import type { Knex } from 'knex';

/**
 * A cover may be limited to capabilities: it hands on only the routings whose every required capability is
 * one of them (null: everything the person is assigned).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('covers', (t) => t.jsonb('capabilities'));
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('covers', (t) => t.dropColumn('capabilities'));
}

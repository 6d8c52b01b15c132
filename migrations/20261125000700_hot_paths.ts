import type { Knex } from 'knex';

/**
 * Workflow starts committed with the record they carry on (a routing decided, an approval opened) and not
 * yet known to have reached Temporal: the request path deletes its row once the start returns; the outbox
 * dispatcher starts whatever a crash left here.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('workflow_starts', (t) => {
    t.text('workflow_id').primary();
    t.text('workflow_type').notNullable();
    t.text('task_queue').notNullable();
    t.jsonb('args').notNullable();
    t.jsonb('search_attributes').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.index(['created_at']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('workflow_starts');
}

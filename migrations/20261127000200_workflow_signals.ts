import type { Knex } from 'knex';

/**
 * Signals committed with the record they tell a workflow about (an approval answered) and not yet known to
 * have reached Temporal: the request path answers once the record commits and delivers the signal after it,
 * deleting its row; the outbox dispatcher delivers whatever a crash or an outage left here.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('workflow_signals', (t) => {
    t.text('workflow_id').notNullable();
    t.text('signal_name').notNullable();
    t.jsonb('args').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    // One ending per workflow and signal: a second is the same message, which the workflow takes once.
    t.primary(['workflow_id', 'signal_name']);
    t.index(['created_at']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('workflow_signals');
}

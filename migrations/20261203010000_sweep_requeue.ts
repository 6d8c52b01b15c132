import type { Knex } from 'knex';

/**
 * A start or signal Temporal refuses for itself steps aside in the dispatcher's sweep: `requeued_at` (null until a
 * refusal) puts it back in the sweep's oldest-first order as if committed then, pushed back further at each refusal,
 * so that a hundred refused rows do not fill every batch. The sweep's order is indexed in place of `created_at`,
 * so an insert on the hot path maintains as many indexes as before and writes the same columns.
 */
const TABLES = ['workflow_starts', 'workflow_signals'] as const;

export async function up(knex: Knex): Promise<void> {
  for (const table of TABLES) {
    await knex.raw(`alter table ${table} add column requeued_at timestamptz`);
    await knex.raw(`drop index ${table}_created_at_index`);
    await knex.raw(`create index ${table}_sweep_order on ${table} ((coalesce(requeued_at, created_at)))`);
  }
}

export async function down(knex: Knex): Promise<void> {
  for (const table of TABLES) {
    await knex.raw(`drop index ${table}_sweep_order`);
    await knex.raw(`create index ${table}_created_at_index on ${table} (created_at)`);
    await knex.raw(`alter table ${table} drop column requeued_at`);
  }
}

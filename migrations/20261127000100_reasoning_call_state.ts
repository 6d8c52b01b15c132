import type { Knex } from 'knex';

/**
 * A reasoning call's row is written when its first provider attempt starts (state open) and completed after
 * the answer is sent (recorded); an open row the API never completed (the process ended) is closed by a
 * sweep as interrupted, with its provenance record. Rows written before this migration were all recorded.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    alter table reasoning_calls add column state text not null default 'recorded';
    alter table reasoning_calls add constraint reasoning_calls_state_check check (state in ('open', 'recorded', 'interrupted'));
    create index reasoning_calls_open on reasoning_calls (created_at) where state = 'open';
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`
    drop index reasoning_calls_open;
    alter table reasoning_calls drop column state;
  `);
}

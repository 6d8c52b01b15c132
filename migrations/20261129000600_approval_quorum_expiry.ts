import type { Knex } from 'knex';

/**
 * Quorum approvals (named approvers, how many must approve, the votes so far, the approvals still needed), the
 * covers that handed a named approver's seat to a colleague, and what a request's deadline does (on_expiry, the
 * escalation chain and level, and what the deadline did).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('approvals', (t) => {
    t.jsonb('approvers');
    t.integer('required_approvals');
    t.jsonb('covering_for');
    t.jsonb('votes');
    t.integer('approvals_needed');
    t.text('on_expiry');
    t.jsonb('escalate_to');
    t.integer('escalation_level');
    t.text('expiry_outcome');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('approvals', (t) => {
    for (const column of [
      'approvers',
      'required_approvals',
      'covering_for',
      'votes',
      'approvals_needed',
      'on_expiry',
      'escalate_to',
      'escalation_level',
      'expiry_outcome',
    ])
      t.dropColumn(column);
  });
}

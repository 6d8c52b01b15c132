import type { Knex } from 'knex';

/**
 * Guardian recovery: a Passport's guardians (rows the recovery service writes with their provenance), and
 * the read model of recovery requests, which their workflows project. The partial unique index is the rule
 * "one open request per Passport", held by the database whatever races.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('recovery_guardians', (t) => {
    t.text('guardian_id').primary();
    t.text('organization_id').notNullable();
    t.text('passport_id').notNullable().references('passport_id').inTable('passports');
    t.text('guardian_passport_id').notNullable().references('passport_id').inTable('passports');
    t.text('guardian_did').notNullable();
    t.text('recovery_method').notNullable();
    t.text('contact').notNullable();
    t.text('status').notNullable();
    t.timestamp('invited_at', { useTz: true }).notNullable();
    t.timestamp('accept_by', { useTz: true }).notNullable();
    t.timestamp('accepted_at', { useTz: true });
    t.timestamp('effective_at', { useTz: true });
    t.timestamp('removal_requested_at', { useTz: true });
    t.timestamp('removal_effective_at', { useTz: true });
    t.text('provenance_id');
    t.index(['passport_id']);
    t.index(['guardian_passport_id']);
  });
  await knex.schema.createTable('recovery_requests', (t) => {
    t.text('request_id').primary();
    t.text('organization_id').notNullable();
    t.integer('version').notNullable();
    t.text('status').notNullable();
    t.text('passport_id').notNullable().references('passport_id').inTable('passports');
    t.text('passport_did').notNullable();
    t.text('reason').notNullable();
    t.text('recovery_contact').notNullable();
    t.text('initiator_did');
    t.text('requested_by').notNullable();
    t.jsonb('new_credential').notNullable();
    t.text('approval_nonce').notNullable();
    t.jsonb('guardians').notNullable();
    t.integer('threshold').notNullable();
    t.jsonb('approvals').notNullable();
    t.timestamp('approvals_due_at', { useTz: true }).notNullable();
    t.integer('time_lock_seconds').notNullable();
    t.timestamp('unlocks_at', { useTz: true });
    t.integer('code_ttl_seconds').notNullable();
    t.timestamp('code_expires_at', { useTz: true });
    t.integer('code_attempts').notNullable();
    t.integer('max_code_attempts').notNullable();
    t.text('cancelled_by');
    t.text('ended_reason');
    t.jsonb('revoked_credentials');
    t.text('provenance_id');
    t.jsonb('failure');
    t.timestamp('created_at', { useTz: true }).notNullable();
    t.timestamp('completed_at', { useTz: true });
    t.timestamp('updated_at', { useTz: true }).notNullable();
    t.index(['organization_id', 'passport_id', 'created_at']);
  });
  await knex.raw(`create unique index recovery_requests_one_open on recovery_requests (passport_id)
    where status in ('collecting_approvals', 'time_locked', 'awaiting_confirmation')`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('recovery_requests');
  await knex.schema.dropTableIfExists('recovery_guardians');
}

import type { Knex } from 'knex';

/**
 * The people of an organization: employees (invited by e-mail with a linking code, active once a Passport of
 * theirs is linked), the e-mail verifications that link a Passport (a 6-digit code, as an HMAC), the
 * attestations organizations sign about people, and each Passport's consent log, which nothing may change.
 * Codes are stored as HMACs under a key named by hmac_key_id, so a rotated secrets key still checks them.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('employees', (t) => {
    t.text('employee_id').primary();
    t.text('organization_id').notNullable().references('organization_id').inTable('organizations');
    t.text('email').notNullable();
    t.text('role').notNullable();
    t.text('status').notNullable();
    t.text('passport_id').references('passport_id').inTable('passports');
    /** The Passport the onboarding enrollment link will mint: enrolling with it links the employee. */
    t.text('enrollment_passport_id');
    t.text('linking_code_hash').notNullable().unique();
    t.text('hmac_key_id').notNullable();
    t.text('invited_by').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable();
    t.timestamp('linking_code_expires_at', { useTz: true }).notNullable();
    t.timestamp('linked_at', { useTz: true });
    t.unique(['organization_id', 'email']);
    t.index(['organization_id', 'created_at', 'employee_id']);
    t.index(['passport_id']);
    t.index(['enrollment_passport_id']);
  });

  await knex.schema.createTable('organization_links', (t) => {
    t.text('link_id').primary();
    t.text('organization_id').notNullable().references('organization_id').inTable('organizations');
    t.text('employee_id').notNullable().references('employee_id').inTable('employees');
    t.text('passport_id').notNullable().references('passport_id').inTable('passports');
    t.text('email').notNullable();
    t.text('code_hash').notNullable();
    t.text('hmac_key_id').notNullable();
    t.integer('attempts').notNullable().defaultTo(0);
    t.text('status').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable();
    t.timestamp('expires_at', { useTz: true }).notNullable();
    t.timestamp('ended_at', { useTz: true });
    t.text('attestation_id');
    t.index(['passport_id', 'created_at']);
  });
  // One verification in flight per Passport: a new request supersedes the last.
  await knex.raw(
    `create unique index organization_links_one_pending on organization_links (passport_id) where status = 'pending'`,
  );

  await knex.schema.createTable('passport_attestations', (t) => {
    t.text('attestation_id').primary();
    /** The attesting organization; the subject Passport belongs to it. */
    t.text('organization_id').notNullable().references('organization_id').inTable('organizations');
    t.text('passport_id').notNullable().references('passport_id').inTable('passports');
    t.text('subject_did').notNullable();
    t.text('skill').notNullable();
    t.text('issuer_did').notNullable();
    t.text('kid').notNullable();
    t.smallint('identity_tier').notNullable();
    /** The compact JWS the issuer's key signed: what an offline verifier checks against its DID document. */
    t.text('proof').notNullable();
    t.text('issued_by').notNullable();
    t.timestamp('timestamp', { useTz: true }).notNullable();
    t.timestamp('expires_at', { useTz: true }).notNullable();
    t.index(['passport_id', 'timestamp', 'attestation_id']);
  });

  await knex.schema.createTable('passport_consents', (t) => {
    t.text('consent_id').primary();
    t.text('organization_id').notNullable().references('organization_id').inTable('organizations');
    t.text('passport_id').notNullable().references('passport_id').inTable('passports');
    t.timestamp('consent_timestamp', { useTz: true }).notNullable();
    t.text('description').notNullable();
    t.jsonb('capability_evidence');
    t.text('recorded_with').notNullable();
    t.text('transaction_id').notNullable();
    t.timestamp('recorded_at', { useTz: true }).notNullable();
    t.index(['passport_id', 'recorded_at', 'consent_id']);
  });
  // Append-only by the database itself, not by the absence of an UPDATE in the code.
  await knex.raw(`
    create function passport_consents_append_only() returns trigger language plpgsql as $$
    begin
      raise exception 'passport_consents is append-only';
    end $$;
    create trigger passport_consents_append_only before update or delete on passport_consents
      for each row execute function passport_consents_append_only();
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('drop trigger if exists passport_consents_append_only on passport_consents');
  await knex.raw('drop function if exists passport_consents_append_only()');
  await knex.schema.dropTable('passport_consents');
  await knex.schema.dropTable('passport_attestations');
  await knex.schema.dropTable('organization_links');
  await knex.schema.dropTable('employees');
}

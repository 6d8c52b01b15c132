import type { Knex } from 'knex';

/**
 * Delegations (one per exchange or grant: the family a token and its rotations belong to), the tokens
 * issued in them (by jti; the token itself is never stored), and revocations, which every API instance
 * reads into memory and follows by LISTEN/NOTIFY. A Passport's identity tier lives on the Passport.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('passports', (t) => {
    t.smallint('identity_tier').notNullable().defaultTo(0);
  });

  await knex.schema.createTable('delegations', (t) => {
    t.text('delegation_id').primary();
    t.text('organization_id').notNullable().references('organization_id').inTable('organizations');
    t.text('passport_id').notNullable().references('passport_id').inTable('passports');
    t.text('did').notNullable();
    t.text('agent_did');
    t.text('agent_id');
    t.text('parent_delegation_id').references('delegation_id').inTable('delegations');
    // Root first: revoking any delegation in the chain revokes every token below it.
    t.specificType('chain', 'text[]').notNullable();
    t.specificType('capabilities', 'text[]').notNullable();
    t.text('environment');
    t.text('risk_level').notNullable();
    t.smallint('verification_tier').notNullable();
    t.smallint('identity_tier').notNullable();
    t.text('credential_type').notNullable();
    t.text('credential_id').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable();
    t.timestamp('expires_at', { useTz: true }).notNullable();
    t.timestamp('revoked_at', { useTz: true });
    t.index(['organization_id', 'passport_id', 'created_at', 'delegation_id']);
  });

  await knex.schema.createTable('delegation_tokens', (t) => {
    t.text('token_id').primary();
    t.text('delegation_id').notNullable().references('delegation_id').inTable('delegations');
    t.text('status').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable();
    t.timestamp('expires_at', { useTz: true }).notNullable();
    t.timestamp('revoked_at', { useTz: true });
    t.text('revoke_reason');
    t.text('replaced_by');
    t.index(['delegation_id', 'created_at', 'token_id']);
  });

  await knex.schema.createTable('delegation_revocations', (t) => {
    t.text('id').primary();
    t.text('organization_id').notNullable();
    t.text('delegation_id').notNullable().references('delegation_id').inTable('delegations');
    // Null when the whole delegation (every token of the family, and every delegation below it) is revoked.
    t.text('token_id');
    t.text('revoked_by').notNullable();
    t.timestamp('revoked_at', { useTz: true }).notNullable();
    t.text('reason');
    t.jsonb('metadata').notNullable();
    // When the revoked tokens would have expired anyway: instances stop holding the entry after it.
    t.timestamp('expires_at', { useTz: true }).notNullable();
    // Transaction time, which the instances' catch-up reads with a look-back (a late commit is not missed).
    t.timestamp('recorded_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.index(['recorded_at']);
    t.index(['organization_id', 'revoked_at', 'id']);
    t.index(['delegation_id']);
  });
  await knex.raw(
    'create unique index delegation_revocations_family on delegation_revocations (delegation_id) where token_id is null',
  );
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('delegation_revocations');
  await knex.schema.dropTable('delegation_tokens');
  await knex.schema.dropTable('delegations');
  await knex.schema.alterTable('passports', (t) => {
    t.dropColumn('identity_tier');
  });
}

import type { Knex } from 'knex';
import { DEFAULT_ORGANIZATION_DID, DEFAULT_ORGANIZATION_ID } from '../domain/common/organizations';

/**
 * Tenancy and identity: organizations (every resource belongs to one; rows from before belong to the
 * default organization created here) and Passports, the identities of people, organizations and agents.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('organizations', (t) => {
    t.text('organization_id').primary();
    t.text('org_did').notNullable().unique();
    t.text('name').notNullable();
    t.text('slug').unique();
    t.text('deployment_mode').notNullable();
    t.text('autonomy_profile').notNullable();
    t.text('data_residency_tier').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable();
    t.timestamp('updated_at', { useTz: true }).notNullable();
    t.index(['created_at', 'organization_id']);
  });
  const now = new Date();
  await knex('organizations').insert({
    organization_id: DEFAULT_ORGANIZATION_ID,
    org_did: DEFAULT_ORGANIZATION_DID,
    name: 'Default organization',
    slug: 'default',
    deployment_mode: 'cloud',
    autonomy_profile: 'balanced',
    data_residency_tier: 'global',
    created_at: now,
    updated_at: now,
  });

  await knex.schema.createTable('passports', (t) => {
    t.text('passport_id').primary();
    t.text('did').notNullable().unique();
    t.text('type').notNullable();
    t.text('name').notNullable();
    t.text('organization_id').notNullable().references('organization_id').inTable('organizations');
    t.jsonb('metadata').notNullable();
    t.specificType('capabilities', 'text[]').notNullable();
    t.text('status').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable();
    t.timestamp('updated_at', { useTz: true }).notNullable();
    t.index(['organization_id', 'created_at', 'passport_id']);
  });

  // A Passport's keys: server-held (agents, organizations; private key sealed) or a device's (people; public only).
  await knex.schema.createTable('passport_keys', (t) => {
    t.text('kid').primary();
    t.text('passport_id').notNullable().references('passport_id').inTable('passports');
    t.jsonb('public_jwk').notNullable();
    t.text('sealed_private_key');
    t.text('source').notNullable();
    t.text('device_id');
    t.text('status').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable();
    t.timestamp('retired_at', { useTz: true });
    t.timestamp('verify_until', { useTz: true });
    t.timestamp('revoked_at', { useTz: true });
    t.text('revoke_reason');
    t.index(['passport_id', 'created_at']);
  });

  // A person's passkeys (WebAuthn credentials); the signature counter catches a cloned authenticator.
  await knex.schema.createTable('webauthn_credentials', (t) => {
    t.text('credential_id').primary();
    t.text('passport_id').notNullable().references('passport_id').inTable('passports');
    t.text('public_key').notNullable();
    t.bigInteger('counter').notNullable();
    t.specificType('transports', 'text[]').notNullable();
    t.text('status').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable();
    t.timestamp('last_used_at', { useTz: true });
    t.timestamp('revoked_at', { useTz: true });
    t.index(['passport_id', 'created_at']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('webauthn_credentials');
  await knex.schema.dropTable('passport_keys');
  await knex.schema.dropTable('passports');
  await knex.schema.dropTable('organizations');
}

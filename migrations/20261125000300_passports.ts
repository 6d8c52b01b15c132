import type { Knex } from 'knex';

/**
 * The device ceremony's challenges (single-use, short-lived, stored as hashes), and at most one
 * organization Passport per organization: the organization's own identity.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('passport_challenges', (t) => {
    t.text('challenge_hash').primary();
    t.text('purpose').notNullable();
    t.text('organization_id').notNullable().references('organization_id').inTable('organizations');
    /** Set for a sign-in challenge: the Passport that must answer it. */
    t.text('passport_id').references('passport_id').inTable('passports');
    /** What a registration challenge will create: the person's name and metadata, given by who invited them. */
    t.jsonb('registration');
    t.text('requested_by');
    t.timestamp('created_at', { useTz: true }).notNullable();
    t.timestamp('expires_at', { useTz: true }).notNullable();
    t.timestamp('consumed_at', { useTz: true });
    t.index(['expires_at']);
  });
  await knex.raw(
    `create unique index passports_one_organization_passport on passports (organization_id) where type = 'organization'`,
  );
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('drop index passports_one_organization_passport');
  await knex.schema.dropTable('passport_challenges');
}

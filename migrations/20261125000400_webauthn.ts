import type { Knex } from 'knex';

/**
 * WebAuthn ceremonies: the challenges a ceremony was started with (in Postgres so that any API instance can
 * finish a ceremony another started; consumed by one conditional delete), and why a passkey was revoked.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('webauthn_challenges', (t) => {
    t.text('challenge').primary();
    // enrollment (an admin enrolls a new person), addition (a signed-in person adds a passkey), rotation, authentication.
    t.text('ceremony').notNullable();
    t.text('organization_id').references('organization_id').inTable('organizations');
    // The Passport the ceremony is for: minted by an enrollment's registration, existing for addition and rotation.
    t.text('passport_id');
    t.text('user_name');
    t.text('display_name');
    t.text('rotates_credential_id');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('expires_at', { useTz: true }).notNullable();
    t.index(['expires_at']);
  });
  await knex.schema.alterTable('webauthn_credentials', (t) => {
    // rotated, counter_regression (a cloned authenticator), or an operator's reason.
    t.text('revoke_reason');
    t.text('replaced_by');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('webauthn_credentials', (t) => {
    t.dropColumn('replaced_by');
    t.dropColumn('revoke_reason');
  });
  await knex.schema.dropTable('webauthn_challenges');
}

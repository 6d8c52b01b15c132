import type { Knex } from 'knex';

/**
 * One-click decisions by e-mail and chat: where a reviewer is reached (an e-mail address, a Slack user), the
 * single-use links sent to them (only a hash of each is kept), and each organization's notification policy (a
 * Slack incoming webhook, sealed; the risk level above which a decision must be signed with a passkey).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('reviewers', (t) => {
    t.text('email');
    t.text('slack_user_id');
  });
  await knex.schema.createTable('decision_links', (t) => {
    t.text('link_hash').primary();
    t.text('link_id').notNullable().unique();
    t.text('organization_id').notNullable().references('organization_id').inTable('organizations');
    t.text('item_kind').notNullable();
    t.text('item_id').notNullable();
    t.text('action').notNullable();
    // A link is used only where it was sent: a Slack button's token is no link to open in a browser.
    t.text('channel').notNullable();
    t.text('passport_id').notNullable();
    t.text('person_did').notNullable();
    t.timestamp('expires_at', { useTz: true }).notNullable();
    t.timestamp('used_at', { useTz: true });
    t.text('used_via');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.index(['organization_id', 'item_id']);
  });
  await knex.schema.createTable('notification_policies', (t) => {
    t.text('organization_id').primary().references('organization_id').inTable('organizations');
    t.text('slack_webhook_url_sealed');
    t.text('passkey_required_above');
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('notification_policies');
  await knex.schema.dropTable('decision_links');
  await knex.schema.alterTable('reviewers', (t) => {
    t.dropColumn('email');
    t.dropColumn('slack_user_id');
  });
}

import type { Knex } from 'knex';

/** Channel a worker LISTENs on to wake the outbox dispatcher as soon as events are committed. */
const OUTBOX_CHANNEL = 'handoff_outbox';

export async function up(knex: Knex): Promise<void> {
  // Reference data, written by the API with a provenance record per change; `version` numbers the changes.
  await knex.schema.createTable('webhook_subscriptions', (t) => {
    t.text('subscription_id').primary();
    t.integer('version').notNullable();
    t.text('url').notNullable();
    t.specificType('events', 'text[]').notNullable();
    t.text('description');
    t.text('status').notNullable();
    t.text('disabled_reason');
    t.timestamp('disabled_at', { useTz: true });
    // Start of the current run of failed attempts; cleared by any success.
    t.timestamp('failing_since', { useTz: true });
    t.text('created_by').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('deleted_at', { useTz: true });
    t.index(['created_at', 'subscription_id']);
  });
  await knex.raw(
    `alter table webhook_subscriptions add constraint webhook_subscriptions_status check (status in ('enabled', 'disabled'))`,
  );

  // Signing secrets, sealed with AES-256-GCM (never stored in the clear); expires_at null is the current one.
  await knex.schema.createTable('webhook_secrets', (t) => {
    t.text('secret_id').primary();
    t.text('subscription_id')
      .notNullable()
      .references('subscription_id')
      .inTable('webhook_subscriptions')
      .onDelete('CASCADE');
    t.text('sealed').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('expires_at', { useTz: true });
    t.index(['subscription_id']);
  });

  // The read model of delivery workflows, written only by their projection activities.
  await knex.schema.createTable('webhook_deliveries', (t) => {
    t.text('delivery_id').primary();
    t.integer('version').notNullable();
    t.text('subscription_id').notNullable();
    t.text('event_id').notNullable();
    t.text('event').notNullable();
    t.text('status').notNullable();
    t.integer('attempts').notNullable();
    t.integer('last_status_code');
    t.text('last_error');
    t.text('failure_reason');
    t.timestamp('next_attempt_at', { useTz: true });
    t.text('replay_of');
    t.timestamp('created_at', { useTz: true }).notNullable();
    t.timestamp('updated_at', { useTz: true }).notNullable();
    t.timestamp('completed_at', { useTz: true });
    t.index(['subscription_id', 'created_at', 'delivery_id']);
    t.index(['event_id']);
  });

  await knex.schema.createTable('webhook_delivery_attempts', (t) => {
    t.text('delivery_id').notNullable().references('delivery_id').inTable('webhook_deliveries').onDelete('CASCADE');
    t.integer('attempt').notNullable();
    t.text('url').notNullable();
    t.timestamp('attempted_at', { useTz: true }).notNullable();
    t.integer('duration_ms').notNullable();
    t.integer('status_code');
    t.text('error');
    t.text('response_snippet');
    t.integer('retry_after_seconds');
    t.text('outcome').notNullable();
    t.timestamp('next_attempt_at', { useTz: true });
    t.primary(['delivery_id', 'attempt']);
  });

  // The dispatcher's claim reads only what is left to dispatch; /v1/events lists by time and kind.
  await knex.raw(
    'create index outbox_events_undispatched on outbox_events (created_at, event_id) where dispatched_at is null',
  );
  await knex.raw('create index outbox_events_created on outbox_events (created_at, event_id)');
  await knex.raw('create index outbox_events_kind_created on outbox_events (event, created_at, event_id)');

  // One notification per inserting statement, delivered at commit (Postgres folds repeats in a transaction).
  await knex.raw(`
    create function handoff_outbox_notify() returns trigger language plpgsql as $$
    begin
      perform pg_notify('${OUTBOX_CHANNEL}', '');
      return null;
    end $$`);
  await knex.raw(
    'create trigger outbox_events_notify after insert on outbox_events for each statement execute function handoff_outbox_notify()',
  );
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('drop trigger if exists outbox_events_notify on outbox_events');
  await knex.raw('drop function if exists handoff_outbox_notify()');
  await knex.raw('drop index if exists outbox_events_kind_created');
  await knex.raw('drop index if exists outbox_events_created');
  await knex.raw('drop index if exists outbox_events_undispatched');
  for (const table of ['webhook_delivery_attempts', 'webhook_deliveries', 'webhook_secrets', 'webhook_subscriptions']) {
    await knex.schema.dropTableIfExists(table);
  }
}

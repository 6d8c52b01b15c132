import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('reviewers', (t) => {
    t.text('did').primary();
    t.text('display_name').notNullable();
    t.jsonb('capabilities').notNullable().defaultTo('{}');
    t.integer('chain_level').notNullable().defaultTo(1);
    t.boolean('available').notNullable().defaultTo(true);
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });
  await knex.raw('alter table reviewers add constraint reviewers_chain_level_positive check (chain_level >= 1)');

  // The read model of routing workflows; written only by the workflow's projection activity.
  await knex.schema.createTable('routings', (t) => {
    t.text('routing_id').primary();
    t.integer('version').notNullable();
    t.text('status').notNullable();
    t.text('request_id');
    t.text('requested_by').notNullable();
    t.text('task_type').notNullable();
    t.text('ai_agent_id').notNullable();
    t.double('ai_confidence').notNullable();
    t.text('decision');
    t.text('reason');
    t.text('escalation_level').notNullable();
    t.text('risk_level');
    t.jsonb('assigned_to');
    t.timestamp('assigned_at', { useTz: true });
    t.integer('estimated_response_time');
    t.jsonb('escalation_chain').notNullable().defaultTo('[]');
    t.jsonb('resolution');
    t.jsonb('decision_result');
    t.jsonb('task').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable();
    t.timestamp('updated_at', { useTz: true }).notNullable();
    t.index(['created_at', 'routing_id']);
    t.index(['status']);
    t.index(['ai_agent_id']);
  });

  // Hash-chained provenance: each record's hash covers the previous one, so a rewrite breaks the chain.
  await knex.schema.createTable('provenance_records', (t) => {
    t.bigInteger('seq').primary();
    t.text('transaction_id').notNullable().unique();
    t.text('subject_id').notNullable();
    t.text('step_id').notNullable();
    t.jsonb('entry').notNullable();
    t.text('canonical_entry').notNullable();
    t.text('prev_hash').notNullable();
    t.text('hash').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.unique(['subject_id', 'step_id']);
  });
  await knex.schema.createTable('ledger_head', (t) => {
    t.integer('id').primary();
    t.bigInteger('seq').notNullable();
    t.text('hash').notNullable();
  });
  await knex.raw('alter table ledger_head add constraint ledger_head_single_row check (id = 1)');
  await knex('ledger_head').insert({ id: 1, seq: 0, hash: '0'.repeat(64) });

  await knex.schema.createTable('outbox_events', (t) => {
    t.text('event_id').primary();
    t.text('event').notNullable();
    t.jsonb('data').notNullable();
    t.bigInteger('provenance_seq').notNullable().references('seq').inTable('provenance_records');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('dispatched_at', { useTz: true });
    t.index(['dispatched_at', 'created_at']);
  });

  await knex.schema.createTable('signing_keys', (t) => {
    t.text('kid').primary();
    t.jsonb('public_jwk').notNullable();
    t.jsonb('private_jwk').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('retired_at', { useTz: true });
    // A retired key stays in the JWKS until every token it signed has expired.
    t.timestamp('publish_until', { useTz: true });
  });

  await knex.schema.createTable('api_tokens', (t) => {
    t.text('token_id').primary();
    t.text('name').notNullable();
    t.text('token_hash').notNullable().unique();
    t.specificType('scopes', 'text[]').notNullable();
    t.text('created_by');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('expires_at', { useTz: true });
    t.timestamp('revoked_at', { useTz: true });
    t.timestamp('last_used_at', { useTz: true });
  });

  await knex.schema.createTable('service_accounts', (t) => {
    t.text('client_id').primary();
    t.text('name').notNullable();
    t.text('secret_hash').notNullable();
    t.specificType('scopes', 'text[]').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('revoked_at', { useTz: true });
  });

  await knex.schema.createTable('rate_limit_counters', (t) => {
    t.text('principal').notNullable();
    t.text('category').notNullable();
    t.timestamp('window_start', { useTz: true }).notNullable();
    t.integer('count').notNullable();
    t.primary(['principal', 'category', 'window_start']);
    t.index(['window_start']);
  });

  await knex.schema.createTable('idempotency_keys', (t) => {
    t.text('principal').notNullable();
    t.text('idempotency_key').notNullable();
    t.text('fingerprint').notNullable();
    t.text('state').notNullable();
    t.timestamp('locked_until', { useTz: true });
    t.integer('response_status');
    t.jsonb('response_headers');
    t.text('response_body');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('expires_at', { useTz: true }).notNullable();
    t.primary(['principal', 'idempotency_key']);
    t.index(['expires_at']);
  });
}

export async function down(knex: Knex): Promise<void> {
  for (const table of [
    'idempotency_keys',
    'rate_limit_counters',
    'service_accounts',
    'api_tokens',
    'signing_keys',
    'outbox_events',
    'ledger_head',
    'provenance_records',
    'routings',
    'reviewers',
  ]) {
    await knex.schema.dropTableIfExists(table);
  }
}

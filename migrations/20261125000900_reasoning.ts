import type { Knex } from 'knex';

/**
 * The model registry (deployment-wide, administered), benchmark results, every reasoning call and each
 * attempt at a provider within it (per organization), signals on calls, and the prompt registry (per
 * organization): prompts with their active version, and their versions in semver order.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('models', (t) => {
    t.text('model_id').primary();
    t.text('provider').notNullable();
    t.text('display_name').notNullable();
    t.text('description');
    t.jsonb('capabilities').notNullable();
    t.integer('context_length').notNullable();
    t.boolean('supports_streaming').notNullable();
    t.boolean('supports_function_calling').notNullable();
    t.boolean('supports_vision').notNullable();
    t.jsonb('performance').notNullable();
    t.jsonb('cost').notNullable();
    t.text('status').notNullable();
    t.integer('benchmark_count').notNullable().defaultTo(0);
    t.timestamp('last_benchmarked_at', { useTz: true });
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.index(['provider', 'status']);
  });
  await knex.raw(
    `alter table models add constraint models_status_check check (status in ('active', 'deprecated', 'experimental'))`,
  );

  // Which versions of the models seed file were loaded: each is loaded once, and never overwrites an administered model.
  await knex.schema.createTable('model_seed_versions', (t) => {
    t.text('version').primary();
    t.integer('models_inserted').notNullable();
    t.timestamp('applied_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });

  await knex.schema.createTable('model_benchmarks', (t) => {
    t.text('benchmark_id').primary();
    t.text('model_id').notNullable().references('model_id').inTable('models');
    t.text('organization_id').notNullable();
    t.text('benchmark_type').notNullable();
    t.text('benchmark_suite').notNullable();
    t.double('score').notNullable();
    t.timestamp('run_at', { useTz: true }).notNullable();
    t.text('run_by');
    t.integer('test_cases_passed');
    t.integer('test_cases_total');
    t.jsonb('raw_results');
    t.text('submitted_by').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.index(['model_id', 'created_at']);
  });

  await knex.schema.createTable('reasoning_calls', (t) => {
    t.text('call_id').primary();
    t.text('organization_id').notNullable();
    t.text('principal_id').notNullable();
    t.text('entity_id');
    t.text('task').notNullable();
    t.text('complexity').notNullable();
    t.text('budget').notNullable();
    t.text('prompt_key');
    t.text('prompt_version');
    t.text('prompt_hash').notNullable();
    // Only when the organization's policy allows keeping prompt text (REASONING_PROMPT_TEXT_ORGANIZATIONS).
    t.text('prompt_text');
    t.boolean('success').notNullable();
    t.text('model_id');
    t.text('provider');
    t.integer('input_tokens').notNullable();
    t.integer('output_tokens').notNullable();
    t.double('cost_usd').notNullable();
    t.integer('duration_ms').notNullable();
    t.boolean('streamed').notNullable();
    t.jsonb('routing_decision').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.index(['organization_id', 'prompt_key', 'created_at']);
  });

  // One row per provider tried within a call: model statistics count failures and fallbacks too.
  await knex.schema.createTable('reasoning_attempts', (t) => {
    t.text('call_id').notNullable().references('call_id').inTable('reasoning_calls');
    t.integer('attempt').notNullable();
    t.text('organization_id').notNullable();
    t.text('model_id').notNullable();
    t.text('provider').notNullable();
    t.text('complexity').notNullable();
    t.boolean('success').notNullable();
    t.text('error');
    t.integer('input_tokens').notNullable();
    t.integer('output_tokens').notNullable();
    t.double('cost_usd').notNullable();
    t.integer('duration_ms').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.primary(['call_id', 'attempt']);
    t.index(['organization_id', 'model_id', 'created_at']);
  });

  await knex.schema.createTable('reasoning_call_signals', (t) => {
    t.text('signal_id').primary();
    t.text('call_id').notNullable().references('call_id').inTable('reasoning_calls');
    t.text('organization_id').notNullable();
    t.text('signal').notNullable();
    t.text('note');
    t.text('recorded_by').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.index(['call_id']);
  });
  await knex.raw(
    `alter table reasoning_call_signals add constraint reasoning_call_signals_signal_check check (signal in ('positive', 'negative', 'rephrase', 'correction'))`,
  );

  await knex.schema.createTable('prompts', (t) => {
    t.text('organization_id').notNullable();
    t.text('prompt_key').notNullable();
    t.text('scope');
    t.text('namespace');
    t.text('active_version').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.primary(['organization_id', 'prompt_key']);
  });

  await knex.schema.createTable('prompt_versions', (t) => {
    t.text('organization_id').notNullable();
    t.text('prompt_key').notNullable();
    t.text('version').notNullable();
    // domain/semver.ts semverSortKey: its byte order (collation "C") is semver precedence.
    t.text('version_sort').notNullable();
    t.text('content').notNullable();
    t.jsonb('meta').notNullable();
    t.jsonb('input_schema');
    t.text('extends_uri');
    t.text('published_by').notNullable();
    t.timestamp('published_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.text('status').notNullable();
    t.timestamp('deprecated_at', { useTz: true });
    t.text('deprecated_by');
    t.primary(['organization_id', 'prompt_key', 'version']);
    t.foreign(['organization_id', 'prompt_key']).references(['organization_id', 'prompt_key']).inTable('prompts');
  });
  await knex.raw(`alter table prompt_versions alter column version_sort type text collate "C"`);
  await knex.raw(
    `create unique index prompt_versions_order on prompt_versions (organization_id, prompt_key, version_sort)`,
  );
  await knex.raw(
    `alter table prompt_versions add constraint prompt_versions_status_check check (status in ('active', 'deprecated'))`,
  );
}

export async function down(knex: Knex): Promise<void> {
  for (const table of [
    'prompt_versions',
    'prompts',
    'reasoning_call_signals',
    'reasoning_attempts',
    'reasoning_calls',
    'model_benchmarks',
    'model_seed_versions',
    'models',
  ]) {
    await knex.schema.dropTableIfExists(table);
  }
}

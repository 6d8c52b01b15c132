import type { Knex } from 'knex';

/**
 * The platform API: the read models of approval, execution and DAG workflows (written only by their
 * workflows' projection activities, versioned), the agents registry and its deployments, the callback
 * signing secrets of callers, and platform tasks (a link from a task to its routing).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('approvals', (t) => {
    t.text('approval_id').primary();
    t.integer('version').notNullable();
    t.text('status').notNullable();
    t.text('org_did');
    t.text('task_id');
    t.text('agent_id');
    t.text('execution_id');
    t.text('workflow_id');
    t.text('requester_passport_id').notNullable();
    t.text('approver_passport_id');
    t.text('action_description').notNullable();
    t.text('risk_level').notNullable();
    t.jsonb('risk_factors').notNullable();
    t.jsonb('request_data').notNullable();
    t.jsonb('params_schema');
    t.jsonb('alternatives').notNullable();
    t.text('responded_by');
    t.text('response_comment');
    t.jsonb('modified_params');
    t.text('response_kind');
    t.text('cancelled_by');
    t.text('cancel_reason');
    t.text('requested_by').notNullable();
    t.text('provenance_id');
    t.timestamp('created_at', { useTz: true }).notNullable();
    t.timestamp('responded_at', { useTz: true });
    t.timestamp('expires_at', { useTz: true }).notNullable();
    t.timestamp('updated_at', { useTz: true }).notNullable();
    t.index(['created_at', 'approval_id']);
    t.index(['status', 'created_at']);
    t.index(['org_did', 'status']);
    t.index(['approver_passport_id']);
    t.index(['requester_passport_id']);
    t.index(['agent_id']);
  });

  await knex.schema.createTable('platform_agents', (t) => {
    t.text('agent_id').primary();
    t.text('agent_uri').notNullable().unique();
    t.text('org').notNullable();
    t.text('name').notNullable();
    t.text('version').notNullable();
    t.text('passport_id').notNullable();
    t.text('description');
    t.specificType('capabilities', 'text[]').notNullable();
    t.text('endpoint_url').notNullable();
    t.text('status').notNullable();
    t.jsonb('approval_policy').notNullable();
    t.jsonb('parameters_schema');
    t.integer('timeout_seconds').notNullable();
    t.integer('max_attempts').notNullable();
    t.text('created_by').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.index(['created_at', 'agent_id']);
    t.index(['org', 'name']);
  });

  await knex.schema.createTable('platform_agent_deployments', (t) => {
    t.text('deployment_id').primary();
    t.text('org').notNullable();
    t.text('name').notNullable();
    t.text('environment').notNullable();
    t.text('version').notNullable();
    t.text('agent_id').notNullable().references('agent_id').inTable('platform_agents');
    t.jsonb('parameters').notNullable();
    t.text('deployed_by').notNullable();
    t.timestamp('deployed_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.index(['org', 'name', 'environment', 'deployed_at']);
  });

  // HMAC keys of the callbacks a caller receives; shown once. A rotation leaves the older ones valid until expires_at.
  await knex.schema.createTable('callback_signing_secrets', (t) => {
    t.text('secret_id').primary();
    t.text('principal').notNullable();
    // AES-256-GCM under SECRETS_ENCRYPTION_KEY (services/secrets/secret-box.ts): HMAC needs the secret itself.
    t.text('sealed_secret').notNullable();
    t.text('secret_hint').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('expires_at', { useTz: true });
    t.index(['principal', 'created_at']);
  });

  await knex.schema.createTable('executions', (t) => {
    t.text('execution_id').primary();
    t.integer('version').notNullable();
    t.text('status').notNullable();
    t.text('task_id');
    t.text('agent_id').notNullable();
    t.text('agent_uri').notNullable();
    t.text('capability_uri').notNullable();
    t.text('requester_passport_id').notNullable();
    t.text('requested_by').notNullable();
    t.jsonb('parameters').notNullable();
    t.text('risk_level').notNullable();
    t.jsonb('risk_factors').notNullable();
    t.text('approval_id');
    t.text('workflow_id');
    t.text('node_id');
    t.jsonb('result_json');
    t.jsonb('error_json');
    t.integer('progress_percent').notNullable().defaultTo(0);
    t.text('progress_message');
    t.text('callback_url');
    t.boolean('callback_success');
    t.integer('callback_attempts').notNullable().defaultTo(0);
    t.integer('max_attempts').notNullable();
    t.integer('current_attempt').notNullable().defaultTo(0);
    t.text('cancelled_by');
    t.text('cancel_reason');
    t.text('provenance_id');
    t.timestamp('queued_at', { useTz: true }).notNullable();
    t.timestamp('started_at', { useTz: true });
    t.timestamp('completed_at', { useTz: true });
    t.timestamp('updated_at', { useTz: true }).notNullable();
    t.index(['queued_at', 'execution_id']);
    t.index(['status', 'queued_at']);
    t.index(['agent_id']);
  });

  // What each attempt of an agent call or a callback did, written by the activity that made it (at least once, keyed by attempt).
  await knex.schema.createTable('execution_attempts', (t) => {
    t.text('execution_id').notNullable();
    t.text('kind').notNullable();
    t.integer('attempt').notNullable();
    t.timestamp('started_at', { useTz: true }).notNullable();
    t.timestamp('finished_at', { useTz: true });
    t.integer('status_code');
    t.text('outcome').notNullable();
    t.text('error');
    t.integer('duration_ms');
    t.primary(['execution_id', 'kind', 'attempt']);
  });
  await knex.raw(
    "alter table execution_attempts add constraint execution_attempts_kind check (kind in ('agent', 'callback'))",
  );

  await knex.schema.createTable('platform_workflows', (t) => {
    t.text('workflow_id').primary();
    t.integer('version').notNullable();
    t.text('status').notNullable();
    t.text('name').notNullable();
    t.text('requested_by').notNullable();
    t.specificType('agent_ids', 'text[]').notNullable();
    t.jsonb('nodes').notNullable();
    t.jsonb('edges').notNullable();
    t.jsonb('error');
    t.text('provenance_id');
    t.timestamp('created_at', { useTz: true }).notNullable();
    t.timestamp('started_at', { useTz: true });
    t.timestamp('completed_at', { useTz: true });
    t.timestamp('updated_at', { useTz: true }).notNullable();
    t.index(['created_at', 'workflow_id']);
    t.index(['status', 'created_at']);
  });
  await knex.raw('create index platform_workflows_agent_ids on platform_workflows using gin (agent_ids)');

  await knex.schema.createTable('platform_tasks', (t) => {
    t.text('task_id').primary();
    t.text('routing_id').notNullable().unique();
    t.text('title').notNullable();
    t.text('description');
    t.text('task_type').notNullable();
    t.text('agent_uri');
    t.jsonb('request').notNullable();
    t.text('submitted_by').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.index(['created_at', 'task_id']);
  });
}

export async function down(knex: Knex): Promise<void> {
  for (const table of [
    'platform_tasks',
    'platform_workflows',
    'execution_attempts',
    'executions',
    'callback_signing_secrets',
    'platform_agent_deployments',
    'platform_agents',
    'approvals',
  ]) {
    await knex.schema.dropTableIfExists(table);
  }
}

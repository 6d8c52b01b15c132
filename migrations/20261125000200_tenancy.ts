import type { Knex } from 'knex';

/** Literal, not imported: this migration keeps meaning what it meant when it first ran. */
const DEFAULT_ORGANIZATION_ID = 'org_default';

/** Resources and credentials: each row belongs to one organization; rows from before belong to the default one. */
const TENANT_TABLES = [
  'api_tokens',
  'service_accounts',
  'agents',
  'reviewers',
  'routings',
  'escalation_rules',
  'safety_domains',
  'safety_checks',
  'routing_feedback',
  'approvals',
  'platform_agents',
  'callback_signing_secrets',
  'executions',
  'platform_workflows',
  'platform_tasks',
  'webhook_subscriptions',
  'webhook_deliveries',
  'compliance_reports',
] as const;

/**
 * Tables whose every write names its organization, so none may fall back to the default one. The others
 * (the platform's workflow read models, agents registry, tasks, callback secrets and compliance reports)
 * keep the default until their writes carry the organization.
 */
const STRICT_TABLES: ReadonlySet<string> = new Set([
  'api_tokens',
  'service_accounts',
  'agents',
  'reviewers',
  'routings',
  'escalation_rules',
  'safety_domains',
  'safety_checks',
  'routing_feedback',
  'webhook_subscriptions',
  'webhook_deliveries',
]);

/**
 * Tenancy: organization_id on every resource and credential, backfilled with the default organization and,
 * where every write names it, required without a default, so a write that forgets its tenant fails instead
 * of landing in the default one. Ledger records and their outbox events carry it too, outside the hashed body: the log stays
 * one global chain, while audit, provenance and event queries show a caller only its organization's records.
 * Keys a caller chooses (a reviewer's DID, a safety domain's name) become unique per organization.
 */
export async function up(knex: Knex): Promise<void> {
  for (const table of TENANT_TABLES) {
    await knex.raw(
      `alter table ?? add column organization_id text not null default '${DEFAULT_ORGANIZATION_ID}' references organizations (organization_id)`,
      [table],
    );
    if (STRICT_TABLES.has(table)) await knex.raw('alter table ?? alter column organization_id drop default', [table]);
  }
  // Adding a column with a default rewrites no row, so the ledger's append-only triggers do not fire.
  for (const table of ['ledger_entries', 'outbox_events']) {
    await knex.raw(`alter table ?? add column organization_id text not null default '${DEFAULT_ORGANIZATION_ID}'`, [
      table,
    ]);
  }

  await knex.raw(`
    alter table reviewers drop constraint reviewers_pkey;
    alter table reviewers add primary key (organization_id, did);
    alter table safety_domains drop constraint safety_domains_pkey;
    alter table safety_domains add primary key (organization_id, domain);

    create index routings_organization_created on routings (organization_id, created_at, routing_id);
    create index approvals_organization_created on approvals (organization_id, created_at, approval_id);
    create index executions_organization_created on executions (organization_id, queued_at, execution_id);
    create index platform_workflows_organization_created on platform_workflows (organization_id, created_at, workflow_id);
    create index escalation_rules_organization_created on escalation_rules (organization_id, created_at, rule_id);
    create index webhook_subscriptions_organization on webhook_subscriptions (organization_id, created_at, subscription_id);
    create index ledger_entries_organization on ledger_entries (organization_id, recorded_at, seq);
    create index outbox_events_organization on outbox_events (organization_id, created_at);
  `);

  // As before, with each record's organization (absent: the default one) stored beside it and its events.
  await knex.raw(`
    create or replace function ledger_append(records jsonb, append_lock bigint) returns table (transaction_id text, block_number bigint)
    language plpgsql volatile as $$
    declare
      open_block bigint;
    begin
      if current_setting('transaction_isolation') <> 'read committed' then
        raise exception 'appending to the ledger needs READ COMMITTED, not %', current_setting('transaction_isolation');
      end if;
      perform pg_advisory_xact_lock_shared(append_lock);
      select coalesce(max(b.block_number), 0) + 1 into open_block from ledger_blocks b;
      with input as (
        select * from jsonb_to_recordset(records)
          as r(ord int, transaction_id text, subject_id text, step_id text, body text, action text, actor_type text, recorded_at timestamptz, events jsonb, organization_id text)),
      inserted as (
        insert into ledger_entries (transaction_id, subject_id, step_id, body, leaf_hash, action, actor_type, recorded_at, block_number, organization_id)
        select i.transaction_id, i.subject_id, i.step_id, i.body, sha256('\\x00'::bytea || convert_to(i.body, 'UTF8')), i.action, i.actor_type, i.recorded_at, open_block,
               coalesce(i.organization_id, '${DEFAULT_ORGANIZATION_ID}')
        from input i order by i.ord
        on conflict do nothing
        returning ledger_entries.seq, ledger_entries.transaction_id, ledger_entries.organization_id)
      insert into outbox_events (event_id, event, data, provenance_seq, organization_id)
      select e.event_id, e.event, e.data, inserted.seq, inserted.organization_id
      from inserted join input i on i.transaction_id = inserted.transaction_id
      cross join jsonb_to_recordset(i.events) as e(event_id text, event text, data jsonb);
      return query
        select e.transaction_id, e.block_number from ledger_entries e
        where e.transaction_id in (select r.transaction_id from jsonb_to_recordset(records) as r(transaction_id text));
    end $$;
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`
    create or replace function ledger_append(records jsonb, append_lock bigint) returns table (transaction_id text, block_number bigint)
    language plpgsql volatile as $$
    declare
      open_block bigint;
    begin
      if current_setting('transaction_isolation') <> 'read committed' then
        raise exception 'appending to the ledger needs READ COMMITTED, not %', current_setting('transaction_isolation');
      end if;
      perform pg_advisory_xact_lock_shared(append_lock);
      select coalesce(max(b.block_number), 0) + 1 into open_block from ledger_blocks b;
      with input as (
        select * from jsonb_to_recordset(records)
          as r(ord int, transaction_id text, subject_id text, step_id text, body text, action text, actor_type text, recorded_at timestamptz, events jsonb)),
      inserted as (
        insert into ledger_entries (transaction_id, subject_id, step_id, body, leaf_hash, action, actor_type, recorded_at, block_number)
        select i.transaction_id, i.subject_id, i.step_id, i.body, sha256('\\x00'::bytea || convert_to(i.body, 'UTF8')), i.action, i.actor_type, i.recorded_at, open_block
        from input i order by i.ord
        on conflict do nothing
        returning ledger_entries.seq, ledger_entries.transaction_id)
      insert into outbox_events (event_id, event, data, provenance_seq)
      select e.event_id, e.event, e.data, inserted.seq
      from inserted join input i on i.transaction_id = inserted.transaction_id
      cross join jsonb_to_recordset(i.events) as e(event_id text, event text, data jsonb);
      return query
        select e.transaction_id, e.block_number from ledger_entries e
        where e.transaction_id in (select r.transaction_id from jsonb_to_recordset(records) as r(transaction_id text));
    end $$;
    drop index ledger_entries_organization;
    drop index outbox_events_organization;
    alter table safety_domains drop constraint safety_domains_pkey;
    alter table safety_domains add primary key (domain);
    alter table reviewers drop constraint reviewers_pkey;
    alter table reviewers add primary key (did);
  `);
  for (const table of ['outbox_events', 'ledger_entries', ...TENANT_TABLES]) {
    await knex.raw('alter table ?? drop column organization_id', [table]);
  }
}

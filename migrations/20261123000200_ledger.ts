import type { Knex } from 'knex';

/** The log's own tables: rows are only ever inserted, which triggers enforce in the database itself. */
const APPEND_ONLY_TABLES = [
  'ledger_keys',
  'ledger_entries',
  'ledger_blocks',
  'ledger_leaves',
  'ledger_nodes',
  'ledger_checkpoints',
  'ledger_attestations',
];

/**
 * Replaces the foundation's hash chain with an RFC 9162 Merkle transparency log:
 *
 * - ledger_entries: every record appended, its RFC 8785 body (the leaf data), leaf hash, and the block it
 *   will be sealed into, known at append time. `seq` is the order of arrival (it may have gaps).
 * - ledger_blocks: a block is closed (no more appends into it) before it is sealed.
 * - ledger_leaves: the gapless leaf index the sealer gives each entry of a block, in order of arrival.
 * - ledger_nodes: the hash of every complete subtree by (level, index), level 0 being the leaves, so a
 *   proof is O(log n) reads.
 * - ledger_checkpoints: one C2SP signed checkpoint per sealed block.
 * - ledger_keys: the log's Ed25519 key and origin, for ever (checkpoints must stay verifiable).
 * - ledger_attestations: signed attestations over records' leaves.
 * - compliance_reports: the read model of compliance report workflows (mutable: not part of the log).
 *
 * Existing records move into the log: each stays in its own block, numbered as before, so every ledger
 * anchor handed out before the upgrade still names the block its record is sealed into. The chain is
 * checked first, so a tampered record is not carried into a log that would then certify it.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    create table ledger_keys (
      key_id text primary key,
      origin text not null,
      public_key bytea not null check (length(public_key) = 32),
      private_key bytea not null check (length(private_key) = 32),
      created_at timestamptz not null default now()
    );

    create table ledger_entries (
      seq bigserial not null unique,
      transaction_id text primary key,
      subject_id text not null,
      step_id text not null,
      body text not null,
      leaf_hash bytea not null check (length(leaf_hash) = 32),
      action text not null,
      actor_type text not null,
      recorded_at timestamptz not null,
      block_number bigint not null check (block_number > 0),
      created_at timestamptz not null default now(),
      unique (subject_id, step_id)
    );
    create index ledger_entries_block on ledger_entries (block_number, seq);
    create index ledger_entries_recorded on ledger_entries (recorded_at, seq);
    create index ledger_entries_leaf_hash on ledger_entries (leaf_hash);
    -- POST /v1/provenance/query searches the records' text.
    create index ledger_entries_text on ledger_entries using gin (to_tsvector('simple', body));

    create table ledger_blocks (
      block_number bigint primary key check (block_number > 0),
      closed_at timestamptz not null default now()
    );

    create table ledger_leaves (
      leaf_index bigint primary key check (leaf_index >= 0),
      transaction_id text not null unique references ledger_entries (transaction_id),
      block_number bigint not null references ledger_blocks (block_number)
    );

    create table ledger_nodes (
      level smallint not null check (level between 0 and 63),
      idx bigint not null check (idx >= 0),
      hash bytea not null check (length(hash) = 32),
      primary key (level, idx)
    );

    create table ledger_checkpoints (
      block_number bigint primary key references ledger_blocks (block_number),
      tree_size bigint not null check (tree_size >= 0),
      root_hash bytea not null check (length(root_hash) = 32),
      checkpoint text not null,
      key_id text not null references ledger_keys (key_id),
      sealed_at timestamptz not null default now()
    );
    create index ledger_checkpoints_tree_size on ledger_checkpoints (tree_size);

    create table ledger_attestations (
      attestation_id text primary key,
      transaction_id text not null references ledger_entries (transaction_id),
      agent_id text not null,
      organization_id text not null,
      claimed_at timestamptz not null,
      statement text not null,
      jws text not null,
      key_id text not null references ledger_keys (key_id),
      attested_by text not null,
      created_at timestamptz not null default now()
    );
    create index ledger_attestations_record on ledger_attestations (transaction_id);

    create table compliance_reports (
      report_id text primary key,
      version integer not null,
      status text not null,
      report_type text not null,
      period text not null,
      request jsonb not null,
      requested_by text not null,
      report jsonb,
      error text,
      created_at timestamptz not null,
      updated_at timestamptz not null
    );
    create index compliance_reports_created on compliance_reports (created_at, report_id);

    -- The sealer gives leaf indexes in order; the database refuses any other.
    create function ledger_leaves_gapless() returns trigger language plpgsql as $$
    declare expected bigint;
    begin
      select coalesce(max(leaf_index) + 1, 0) into expected from ledger_leaves;
      if new.leaf_index <> expected then
        raise exception 'ledger leaf % would leave a gap: the next leaf index is %', new.leaf_index, expected;
      end if;
      return new;
    end $$;
    create trigger ledger_leaves_gapless before insert on ledger_leaves for each row execute function ledger_leaves_gapless();

    -- One round trip per append (see db/ledger.ts appendProvenanceBatch). In READ COMMITTED a volatile
    -- function's every query takes a new snapshot, so the open block is read after the lock is granted.
    create function ledger_append(records jsonb, append_lock bigint) returns table (transaction_id text, block_number bigint)
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
      -- A record appended before adds no events: only the inserted ones reach the outbox.
      insert into outbox_events (event_id, event, data, provenance_seq)
      select e.event_id, e.event, e.data, inserted.seq
      from inserted join input i on i.transaction_id = inserted.transaction_id
      cross join jsonb_to_recordset(i.events) as e(event_id text, event text, data jsonb);
      -- Again a new snapshot: it also sees a duplicate a concurrent retry committed first.
      return query
        select e.transaction_id, e.block_number from ledger_entries e
        where e.transaction_id in (select r.transaction_id from jsonb_to_recordset(records) as r(transaction_id text));
    end $$;

    create function ledger_reject_change() returns trigger language plpgsql as $$
    begin
      raise exception '% on % is refused: the ledger is append-only', tg_op, tg_table_name using errcode = 'restrict_violation';
    end $$;
  `);
  for (const table of APPEND_ONLY_TABLES) {
    await knex.raw(`
      create trigger ${table}_append_only before update or delete on ${table} for each row execute function ledger_reject_change();
      create trigger ${table}_no_truncate before truncate on ${table} for each statement execute function ledger_reject_change();
    `);
  }

  const broken = await knex.raw<{ rows: { seq: string }[] }>(`
    with chain as (
      select seq, prev_hash, hash, canonical_entry,
             lag(hash, 1, repeat('0', 64)) over (order by seq) as expected_prev,
             row_number() over (order by seq) as position
      from provenance_records)
    select seq from chain
    where seq <> position or prev_hash <> expected_prev
       or hash <> encode(sha256(convert_to(prev_hash || canonical_entry, 'UTF8')), 'hex')
    order by seq limit 1`);
  if (broken.rows[0]) {
    throw new Error(
      `provenance_records is broken at seq ${broken.rows[0].seq}: refusing to carry a tampered chain into the Merkle log`,
    );
  }
  await knex.raw(`
    insert into ledger_blocks (block_number, closed_at) select seq, created_at from provenance_records order by seq;
    insert into ledger_entries (seq, transaction_id, subject_id, step_id, body, leaf_hash, action, actor_type, recorded_at, block_number, created_at)
      select seq, transaction_id, subject_id, step_id, canonical_entry,
             sha256('\\x00'::bytea || convert_to(canonical_entry, 'UTF8')),
             entry->>'action', entry->'actor'->>'type', (entry->>'timestamp')::timestamptz, seq, created_at
      from provenance_records order by seq;
    select setval(pg_get_serial_sequence('ledger_entries', 'seq'), greatest((select max(seq) from ledger_entries), 1), (select count(*) > 0 from ledger_entries));

    alter table outbox_events drop constraint outbox_events_provenance_seq_foreign;
    alter table outbox_events add constraint outbox_events_provenance_seq_foreign foreign key (provenance_seq) references ledger_entries (seq);
    drop table ledger_head;
    drop table provenance_records;
  `);
}

/**
 * Back to the hash chain: every entry, sealed or not, in order of arrival, chained again as the
 * foundation hashed it, so a down-and-up round trip keeps every record and its outbox events.
 */
export async function down(knex: Knex): Promise<void> {
  await knex.raw(`
    create table provenance_records (
      seq bigint primary key, transaction_id text not null unique, subject_id text not null, step_id text not null,
      entry jsonb not null, canonical_entry text not null, prev_hash text not null, hash text not null,
      created_at timestamptz not null default now(), unique (subject_id, step_id));
    create table ledger_head (id integer primary key, seq bigint not null, hash text not null, constraint ledger_head_single_row check (id = 1));

    do $$
    declare
      e record;
      n bigint := 0;
      previous text := repeat('0', 64);
      next_hash text;
    begin
      for e in select * from ledger_entries order by seq loop
        n := n + 1;
        next_hash := encode(sha256(convert_to(previous || e.body, 'UTF8')), 'hex');
        insert into provenance_records values (n, e.transaction_id, e.subject_id, e.step_id, e.body::jsonb, e.body, previous, next_hash, e.created_at);
        previous := next_hash;
      end loop;
      insert into ledger_head values (1, n, previous);
    end $$;

    alter table outbox_events drop constraint outbox_events_provenance_seq_foreign;
    update outbox_events o set provenance_seq = p.seq
      from ledger_entries e join provenance_records p using (transaction_id) where o.provenance_seq = e.seq;
    alter table outbox_events add constraint outbox_events_provenance_seq_foreign foreign key (provenance_seq) references provenance_records (seq);

    drop table compliance_reports;
    drop table ledger_attestations, ledger_checkpoints, ledger_nodes, ledger_leaves, ledger_blocks, ledger_entries, ledger_keys;
    drop function ledger_reject_change();
    drop function ledger_append(jsonb, bigint);
    drop function ledger_leaves_gapless();
  `);
}

import type { Knex } from 'knex';

/**
 * The catch-up of revocations reads by transaction id, not by time: each row carries the id of the
 * transaction that wrote it (xid8, which never wraps), and an instance remembers the oldest transaction still
 * running when it last read (pg_snapshot_xmin). Every row of an older transaction was visible to that read;
 * every row of a transaction still running then, however long it waits on a lock before it commits, has an
 * id at or above that mark and is read by the next catch-up. A time column cannot promise this: it holds the
 * transaction's start, which may be long before its commit.
 */
export async function up(knex: Knex): Promise<void> {
  // Rows written before have 0, below any mark: only a full load (an instance starting) reads them, and it reads all.
  await knex.raw(`alter table delegation_revocations add column xid xid8 not null default '0'`);
  await knex.raw('alter table delegation_revocations alter column xid set default pg_current_xact_id()');
  await knex.raw('create index delegation_revocations_xid on delegation_revocations (xid)');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('alter table delegation_revocations drop column xid');
}

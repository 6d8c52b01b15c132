import type { Knex } from 'knex';

/**
 * What operators watch across the whole deployment, read when Prometheus scrapes. These are the only
 * queries that count across organizations on purpose: they serve the operator's metrics port, never a tenant,
 * and carry no tenant's data (counts and ages only). Each reads an index range of what is waiting, not a table.
 */

export interface Waiting {
  count: number;
  /** Seconds the oldest waiting item has waited; 0 when none waits. */
  oldest_seconds: number;
}

interface WaitingRow {
  count: number;
  oldest: number | null;
}

// count is cast to int and the age to float8 in SQL, so pg gives numbers.
const waitingOf = (row: WaitingRow | undefined): Waiting => ({
  count: row?.count ?? 0,
  oldest_seconds: Math.max(0, row?.oldest ?? 0),
});

/** Approvals pending an answer, and routings queued for or assigned to a human and not yet resolved. */
export async function itemsWaitingOnHumans(db: Knex): Promise<{ approval: Waiting; routing: Waiting }> {
  const { rows } = await db.raw<{ rows: Array<WaitingRow & { kind: 'approval' | 'routing' }> }>(
    `select 'approval' as kind, count(*)::int as count, extract(epoch from now() - min(created_at))::float8 as oldest
       from approvals where status = 'pending'
     union all
     select 'routing', count(*)::int, extract(epoch from now() - min(created_at))::float8
       from routings where status in ('queued', 'in_progress')`,
  );
  return {
    approval: waitingOf(rows.find((row) => row.kind === 'approval')),
    routing: waitingOf(rows.find((row) => row.kind === 'routing')),
  };
}

/** Outbox events not yet dispatched to webhook deliveries. */
export async function outboxBacklog(db: Knex): Promise<Waiting> {
  const { rows } = await db.raw<{ rows: WaitingRow[] }>(
    `select count(*)::int as count, extract(epoch from now() - min(created_at))::float8 as oldest from outbox_events where dispatched_at is null`,
  );
  return waitingOf(rows[0]);
}

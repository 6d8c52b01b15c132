import type { Knex } from 'knex';

/** One call of an installation, as its organization reports it. */
export interface InvocationRecord {
  installation_id: string;
  organization_id: string;
  connector_id: string;
  operation: string;
  succeeded: boolean;
  duration_ms: number;
  error_code: string | null;
  cost_usd: number;
}

export interface InvocationRow extends InvocationRecord {
  invocation_id: string;
  invoked_at: Date;
}

export async function insertInvocation(db: Knex, record: InvocationRecord): Promise<InvocationRow> {
  const [row] = await db('connector_invocations')
    .insert(record)
    .returning<InvocationRow[]>([
      'invocation_id',
      'installation_id',
      'organization_id',
      'connector_id',
      'operation',
      'succeeded',
      'duration_ms',
      'error_code',
      db.raw('cost_usd::float as cost_usd'),
      'invoked_at',
    ]);
  return row!;
}

/** One UTC day of an installation's invocations; a day without any has zeros and null durations. */
export interface UsageDay {
  date: string;
  invocations: number;
  failed: number;
  average_duration_ms: number | null;
  p50_duration_ms: number | null;
  cost_usd: number;
}

export interface UsageTotals {
  total_invocations: number;
  successful_invocations: number;
  failed_invocations: number;
  average_duration_ms: number | null;
  p50_duration_ms: number | null;
  total_cost_usd: number;
  last_invocation_at: Date | null;
}

const FIGURES = `count(v.invocation_id)::int as invocations,
  (count(v.invocation_id) filter (where not v.succeeded))::int as failed,
  round(avg(v.duration_ms), 1)::float as average_duration_ms,
  (percentile_cont(0.5) within group (order by v.duration_ms))::float as p50_duration_ms,
  coalesce(sum(v.cost_usd), 0)::float as cost_usd`;

/** The first instant of the window: midnight UTC, days - 1 days before today. */
const WINDOW_START = `(((now() at time zone 'utc')::date - (?::int - 1))::timestamp at time zone 'utc')`;

/** Every UTC day of the window, oldest first, zero-filled, from the recorded invocations of the installation. */
export async function usageDays(db: Knex, installationId: string, days: number): Promise<UsageDay[]> {
  const { rows } = await db.raw<{ rows: UsageDay[] }>(
    `with days as (
       select generate_series((now() at time zone 'utc')::date - (?::int - 1), (now() at time zone 'utc')::date,
         interval '1 day')::date as day
     )
     select to_char(d.day, 'YYYY-MM-DD') as date, ${FIGURES}
     from days d
     left join connector_invocations v on v.installation_id = ?
       and v.invoked_at >= (d.day::timestamp at time zone 'utc')
       and v.invoked_at < ((d.day + 1)::timestamp at time zone 'utc')
     group by d.day
     order by d.day`,
    [days, installationId],
  );
  return rows;
}

/** The window's totals, and the last invocation ever recorded of the installation. */
export async function usageTotals(db: Knex, installationId: string, days: number): Promise<UsageTotals> {
  const { rows } = await db.raw<{ rows: Array<UsageDay & { last_invocation_at: Date | null }> }>(
    `select ${FIGURES},
       (select max(invoked_at) from connector_invocations where installation_id = ?) as last_invocation_at
     from connector_invocations v
     where v.installation_id = ? and v.invoked_at >= ${WINDOW_START}`,
    [installationId, installationId, days],
  );
  const row = rows[0]!;
  return {
    total_invocations: row.invocations,
    successful_invocations: row.invocations - row.failed,
    failed_invocations: row.failed,
    average_duration_ms: row.average_duration_ms,
    p50_duration_ms: row.p50_duration_ms,
    total_cost_usd: row.cost_usd,
    last_invocation_at: row.last_invocation_at,
  };
}

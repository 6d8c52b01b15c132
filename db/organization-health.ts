import type { Knex } from 'knex';

/** What each of these organizations has waiting or failing now, read in one query per table. */
export interface OrganizationHealthFacts {
  approvals_past_expiry: number;
  executions_failed_24h: number;
  executions_finished_24h: number;
  executions_queued_stale: number;
  installations_needing_reconnect: number;
}

const EMPTY: OrganizationHealthFacts = {
  approvals_past_expiry: 0,
  executions_failed_24h: 0,
  executions_finished_24h: 0,
  executions_queued_stale: 0,
  installations_needing_reconnect: 0,
};

type Counted = { organization_id: string } & Record<string, string | number>;

async function grouped(query: Knex.QueryBuilder, organizationIds: readonly string[]): Promise<Counted[]> {
  const rows: unknown = await query.whereIn('organization_id', organizationIds).groupBy('organization_id');
  return rows as Counted[];
}

/** A queued execution no worker took for this long says the organization's work is not moving. */
const QUEUED_STALE_MINUTES = 15;

export async function organizationHealthFacts(
  db: Knex,
  organizationIds: readonly string[],
): Promise<Map<string, OrganizationHealthFacts>> {
  const facts = new Map(organizationIds.map((id) => [id, { ...EMPTY }]));
  if (organizationIds.length === 0) return facts;
  const [approvals, executions, installations] = await Promise.all([
    grouped(
      db('approvals')
        .select('organization_id', db.raw('count(*)::int as approvals_past_expiry'))
        .where('status', 'pending')
        .where('expires_at', '<', db.fn.now()),
      organizationIds,
    ),
    grouped(
      db('executions').select(
        'organization_id',
        db.raw(`count(*) filter (where status = 'failed' and completed_at > now() - interval '24 hours')::int
                  as executions_failed_24h`),
        db.raw(`count(*) filter (where status in ('completed', 'failed') and completed_at > now() - interval '24 hours')::int
                  as executions_finished_24h`),
        db.raw(`count(*) filter (where status = 'queued' and queued_at < now() - interval '${QUEUED_STALE_MINUTES} minutes')::int
                  as executions_queued_stale`),
      ),
      organizationIds,
    ),
    grouped(
      db('connector_installations')
        .select('organization_id', db.raw('count(*)::int as installations_needing_reconnect'))
        .where('status', 'needs_reauth'),
      organizationIds,
    ),
  ]);
  for (const row of [...approvals, ...executions, ...installations]) {
    const { organization_id, ...counts } = row;
    Object.assign(
      facts.get(organization_id)!,
      Object.fromEntries(Object.entries(counts).map(([k, v]) => [k, Number(v)])),
    );
  }
  return facts;
}

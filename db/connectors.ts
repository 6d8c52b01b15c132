import type { Knex } from 'knex';
import { Connector } from '../contracts/aggregates/connector';
import { connectorHealth, HEALTH_WINDOW_HOURS, type ConnectorHealthStatus } from '../domain/marketplace/health';
import { rowOf } from '../lib/shape';
import { paginate, type Page, type PageRequest } from './pagination';

/** The catalog's figures, computed from installations, ratings and invocations rather than stored. */
export interface ConnectorStatistics {
  install_count: number;
  rating_average: number | null;
  rating_count: number;
  invocation_count_30d: number;
}

/**
 * A connector's health, read from the calls its installations recorded: the status from the last
 * HEALTH_WINDOW_HOURS, and when the last call within 30 days was (null: none, status unknown).
 */
export interface ConnectorHealth {
  health_status: ConnectorHealthStatus;
  last_health_check_at: Date | null;
}

/** What the catalog shows beside a connector's entry. */
export type ConnectorFigures = ConnectorStatistics & { health: ConnectorHealth };

export type ConnectorWithStatistics = Connector & ConnectorStatistics;

export interface ConnectorFilters {
  query?: string | undefined;
  provider?: string | undefined;
  certified?: boolean | undefined;
  pricing_model?: string | undefined;
  capability?: string | undefined;
}

const connectorRow = rowOf(Connector.omit({ created_at: true, updated_at: true })).of;

/** Adds the connector to the catalog, or replaces what it says (its id, creation and health check stay). */
export async function upsertConnector(
  db: Knex,
  connector: Omit<Connector, 'created_at' | 'updated_at'>,
): Promise<Connector> {
  const row = {
    ...connectorRow(connector),
    capabilities: connector.capabilities,
    deployment_modes: connector.deployment_modes,
  };
  const [stored] = await db('marketplace_connectors')
    .insert(row)
    .onConflict('connector_id')
    .merge({ ...row, updated_at: db.fn.now() })
    .returning<Connector[]>(Object.keys(Connector.shape));
  return stored!;
}

export async function findConnector(db: Knex, connectorId: string): Promise<Connector | undefined> {
  return db('marketplace_connectors')
    .select(Object.keys(Connector.shape))
    .where({ connector_id: connectorId })
    .first<Connector | undefined>();
}

/** Both dictionaries of the search document: names and providers as words ('simple'), descriptions stemmed ('english'). */
const TSQUERY = `(websearch_to_tsquery('simple', ?) || websearch_to_tsquery('english', ?))`;

/**
 * One page of the catalog: with a query, the matches ranked by ts_rank over the GIN-indexed document (best
 * first, then by id); without one, newest first. Filters combine. The rank is a column of the inner query,
 * so the keyset cursor pages through it like any other.
 */
export async function searchConnectors(
  db: Knex,
  filters: ConnectorFilters,
  page: Omit<PageRequest, 'sort'>,
): Promise<Page<Connector>> {
  const text = filters.query?.trim();
  const inner = db('marketplace_connectors').select(Object.keys(Connector.shape));
  if (text) {
    inner.select(db.raw(`ts_rank(search, ${TSQUERY}) as rank`, [text, text]));
    inner.whereRaw(`search @@ ${TSQUERY}`, [text, text]);
  }
  if (filters.provider) inner.whereRaw('lower(provider) = lower(?)', [filters.provider]);
  if (filters.certified !== undefined) inner.where('certified', filters.certified);
  if (filters.pricing_model) inner.where('pricing_model', filters.pricing_model);
  if (filters.capability) inner.whereRaw('capabilities @> array[?]::text[]', [filters.capability]);
  const sort: PageRequest['sort'] = text
    ? [
        { column: 'rank', direction: 'desc' },
        { column: 'connector_id', direction: 'asc' },
      ]
    : [
        { column: 'created_at', direction: 'desc' },
        { column: 'connector_id', direction: 'desc' },
      ];
  const found = await paginate<Connector & { rank?: number }>(db.from(inner.as('c')).select('c.*'), { ...page, sort });
  return { ...found, data: found.data.map(({ rank: _rank, ...connector }) => connector) };
}

/** The figures of each connector named, from live installations, ratings and the last 30 days of invocations, and its health. */
export async function connectorStatistics(db: Knex, connectorIds: string[]): Promise<Map<string, ConnectorFigures>> {
  const figures = new Map<string, ConnectorFigures>(
    connectorIds.map((id) => [
      id,
      {
        install_count: 0,
        rating_average: null,
        rating_count: 0,
        invocation_count_30d: 0,
        health: { health_status: 'unknown', last_health_check_at: null },
      },
    ]),
  );
  if (connectorIds.length === 0) return figures;
  const installs = await db('connector_installations')
    .select('connector_id')
    .count<{ connector_id: string; count: string }[]>({ count: '*' })
    .whereIn('connector_id', connectorIds)
    .whereIn('status', ['active', 'suspended', 'needs_reauth'])
    .groupBy('connector_id');
  for (const row of installs) figures.get(row.connector_id)!.install_count = Number(row.count);
  // Per installation first: the health is one vote per installation that called in the window (the rule of
  // domain/marketplace/health.ts, failing = half or more of its calls failed).
  const invocations = await db
    .from(
      db('connector_invocations')
        .select(
          'connector_id',
          db.raw('count(*) as calls_30d'),
          db.raw(`count(*) filter (where invoked_at > now() - interval '${HEALTH_WINDOW_HOURS} hours') as calls`),
          db.raw(
            `count(*) filter (where invoked_at > now() - interval '${HEALTH_WINDOW_HOURS} hours' and not succeeded) as failed`,
          ),
          db.raw('max(invoked_at) as last_at'),
        )
        .whereIn('connector_id', connectorIds)
        .where('invoked_at', '>', db.raw(`now() - interval '30 days'`))
        .groupBy('connector_id', 'installation_id')
        .as('i'),
    )
    .select<{ connector_id: string; count: string; reporting: string; failing: string; last_at: Date }[]>(
      'connector_id',
      db.raw('sum(calls_30d) as count'),
      db.raw('count(*) filter (where calls > 0) as reporting'),
      db.raw('count(*) filter (where calls > 0 and failed * 2 >= calls) as failing'),
      db.raw('max(last_at) as last_at'),
    )
    .groupBy('connector_id');
  for (const row of invocations) {
    const connector = figures.get(row.connector_id)!;
    connector.invocation_count_30d = Number(row.count);
    connector.health = {
      health_status: connectorHealth({ reporting: Number(row.reporting), failing: Number(row.failing) }),
      last_health_check_at: row.last_at,
    };
  }
  const ratings = await db('connector_ratings')
    .select<{ connector_id: string; count: string; average: string }[]>(
      'connector_id',
      db.raw('count(*) as count'),
      db.raw('avg(rating) as average'),
    )
    .whereIn('connector_id', connectorIds)
    .groupBy('connector_id');
  for (const row of ratings) {
    const connector = figures.get(row.connector_id)!;
    connector.rating_count = Number(row.count);
    connector.rating_average = Math.round(Number(row.average) * 100) / 100;
  }
  return figures;
}

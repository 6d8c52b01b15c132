import type { Knex } from 'knex';
import type { OrganizationConnector } from '../contracts/aggregates/organization-connector';
import { paginate, type Page, type PageRequest } from './pagination';

/** The organization_connectors table's row as read: instants as Date, the status as it is now. */
export interface OrganizationConnectorRow {
  connector_id: string;
  organization_id: string;
  name: string;
  connector_type: OrganizationConnector['connector_type'];
  configuration: Record<string, unknown>;
  capabilities: string[];
  status: OrganizationConnector['status'];
  installation_id: string | null;
  created_by: string;
  created_at: Date;
  updated_at: Date;
}

export const ORGANIZATION_CONNECTOR_SORTABLE = { created_at: 'created_at', name: 'name' };

export function organizationConnectorFromRow(row: OrganizationConnectorRow): OrganizationConnector {
  return {
    connector_id: row.connector_id,
    organization_id: row.organization_id,
    name: row.name,
    connector_type: row.connector_type,
    configuration: row.configuration,
    capabilities: row.capabilities,
    status: row.status,
    ...(row.installation_id !== null ? { installation_id: row.installation_id } : {}),
    created_by: row.created_by,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}

/**
 * The connectors with their status as it is now: a marketplace connector is active only while its
 * installation is, so a suspended or disconnected installation never shows as a working connector.
 */
function currentQuery(db: Knex, organizationId: string) {
  const current = db('organization_connectors as o')
    .leftJoin('connector_installations as i', 'i.installation_id', 'o.installation_id')
    .where('o.organization_id', organizationId)
    .select(
      'o.connector_id',
      'o.organization_id',
      'o.name',
      'o.connector_type',
      'o.configuration',
      'o.capabilities',
      'o.installation_id',
      'o.created_by',
      'o.created_at',
      'o.updated_at',
      db.raw(
        `case when o.installation_id is null then o.status
              when i.status = 'active' then 'active' else 'inactive' end as status`,
      ),
    );
  return db.from(current.as('c')).select('c.*');
}

/** Stores a connector once: a retry with the same id (the same Idempotency-Key) finds the first one. */
export async function insertOrganizationConnector(
  db: Knex,
  connector: OrganizationConnector,
): Promise<'inserted' | 'retried' | 'name_taken'> {
  const inserted = await db('organization_connectors')
    .insert({
      ...connector,
      installation_id: connector.installation_id ?? null,
      configuration: JSON.stringify(connector.configuration),
      capabilities: JSON.stringify(connector.capabilities),
    })
    .onConflict()
    .ignore()
    .returning('connector_id');
  if (inserted.length === 1) return 'inserted';
  const same: unknown = await db('organization_connectors')
    .where({ connector_id: connector.connector_id, organization_id: connector.organization_id })
    .first('connector_id');
  return same ? 'retried' : 'name_taken';
}

export async function findOrganizationConnector(
  db: Knex,
  organizationId: string,
  connectorId: string,
): Promise<OrganizationConnectorRow | undefined> {
  return currentQuery(db, organizationId)
    .where('c.connector_id', connectorId)
    .first<OrganizationConnectorRow | undefined>();
}

export function listOrganizationConnectors(
  db: Knex,
  organizationId: string,
  page: PageRequest,
  filter: { connector_type?: string | undefined; status?: string | undefined },
): Promise<Page<OrganizationConnectorRow>> {
  const query = currentQuery(db, organizationId);
  if (filter.connector_type) query.where('c.connector_type', filter.connector_type);
  if (filter.status) query.where('c.status', filter.status);
  return paginate<OrganizationConnectorRow>(query, page);
}

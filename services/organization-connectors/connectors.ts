import type { Knex } from 'knex';
import type { OrganizationConnector } from '../../contracts/aggregates/organization-connector';
import { findOrganization } from '../../db/organizations';
import {
  findOrganizationConnector,
  insertOrganizationConnector,
  organizationConnectorFromRow,
} from '../../db/organization-connectors';
import { typeCapabilities, type OrganizationConnectorType } from '../../domain/marketplace/organization-connectors';
import { checkConfiguration, type ConfigurationProblem } from './configuration';
import { resourceId } from '../../lib/ids';
import type { Principal } from '../identity/scopes';

export interface NewOrganizationConnector {
  orgId: string;
  connectorName: string;
  connectorType: OrganizationConnectorType;
  configuration: Record<string, unknown>;
}

export type OrganizationConnectorRefusal =
  | { ok: false; code: 'organization_not_found'; detail: string }
  | { ok: false; code: 'validation_failed'; errors: ConfigurationProblem[] }
  | { ok: false; code: 'installation_not_usable'; detail: string }
  | { ok: false; code: 'organization_connector_exists'; detail: string };

/** orgId names the caller's own organization, by its id or its DID; any other answers as an unknown one. */
async function ownOrganization(db: Knex, caller: Principal, orgId: string): Promise<boolean> {
  const own = await findOrganization(db, caller.organization_id);
  return own !== undefined && (own.organization_id === orgId || own.org_did === orgId);
}

/** A marketplace connector's installation: the caller's organization's, active; and its connector's capabilities. */
async function activeInstallation(
  db: Knex,
  organizationId: string,
  installationId: string,
): Promise<string[] | undefined> {
  const row = await db('connector_installations as i')
    .join('marketplace_connectors as c', 'c.connector_id', 'i.connector_id')
    .where({ 'i.installation_id': installationId, 'i.organization_id': organizationId, 'i.status': 'active' })
    .first<{ capabilities: string[] } | undefined>('c.capabilities');
  return row?.capabilities;
}

async function capabilitiesOf(
  db: Knex,
  organizationId: string,
  type: OrganizationConnectorType,
  configuration: Record<string, unknown>,
): Promise<string[] | undefined> {
  if (type !== 'marketplace') return typeCapabilities(type, configuration);
  return activeInstallation(db, organizationId, String(configuration.installation_id));
}

/**
 * Creates an organization's connector, its configuration checked against its type. A marketplace connector
 * needs an active installation of the organization. With an Idempotency-Key a retry answers the first one.
 */
export async function createOrganizationConnector(
  db: Knex,
  caller: Principal,
  body: NewOrganizationConnector,
  idempotencyKey?: string,
): Promise<{ ok: true; connector: OrganizationConnector } | OrganizationConnectorRefusal> {
  if (!(await ownOrganization(db, caller, body.orgId)))
    return { ok: false, code: 'organization_not_found', detail: `No organization ${body.orgId} of yours` };
  const checked = checkConfiguration(body.connectorType, body.configuration);
  if (!checked.ok) return { ok: false, code: 'validation_failed', errors: checked.errors };
  const organizationId = caller.organization_id;
  const capabilities = await capabilitiesOf(db, organizationId, body.connectorType, checked.configuration);
  if (!capabilities)
    return {
      ok: false,
      code: 'installation_not_usable',
      detail: 'configuration.installation_id names no active installation of your organization',
    };
  const now = new Date().toISOString();
  const connector: OrganizationConnector = {
    connector_id: resourceId('occ', caller.id, idempotencyKey),
    organization_id: organizationId,
    name: body.connectorName,
    connector_type: body.connectorType,
    configuration: checked.configuration,
    capabilities,
    status: 'active',
    ...(body.connectorType === 'marketplace' ? { installation_id: String(checked.configuration.installation_id) } : {}),
    created_by: caller.id,
    created_at: now,
    updated_at: now,
  };
  const stored = await insertOrganizationConnector(db, connector);
  if (stored === 'name_taken')
    return {
      ok: false,
      code: 'organization_connector_exists',
      detail: `Your organization has a connector named ${body.connectorName}`,
    };
  const row = await findOrganizationConnector(db, organizationId, connector.connector_id);
  if (!row) throw new Error(`Connector ${connector.connector_id} was stored but has no row in its organization`);
  return { ok: true, connector: organizationConnectorFromRow(row) };
}

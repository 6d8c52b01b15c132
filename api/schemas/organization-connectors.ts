import { z } from './zod';
import {
  ORGANIZATION_CONNECTOR_STATUSES,
  OrganizationConnector,
} from '../../contracts/aggregates/organization-connector';
import { ORGANIZATION_CONNECTOR_TYPES } from '../../domain/marketplace/organization-connectors';
import { viewOf } from '../../lib/shape';
import { listQuerySchema } from './common';

/** The view: camelCase as the spec's creation body and listing have them (connectorId, name, status, capabilities). */
export const organizationConnector = viewOf(OrganizationConnector, {
  rename: {
    connector_id: 'connectorId',
    organization_id: 'orgId',
    connector_type: 'connectorType',
    installation_id: 'installationId',
    created_by: 'createdBy',
    created_at: 'createdAt',
    updated_at: 'updatedAt',
  },
});
export const OrganizationConnectorSchema = organizationConnector.schema.openapi('OrganizationConnector');

export const CreateOrganizationConnectorSchema = z
  .strictObject({
    orgId: z.string().min(1).max(200).openapi({ description: 'Your organization: its organization_id or its DID' }),
    connectorName: z.string().trim().min(1).max(200).openapi({ example: 'Finance alerts' }),
    connectorType: z.enum(ORGANIZATION_CONNECTOR_TYPES).openapi({
      description:
        'webhook {url (https), events}; rest_api {base_url (https), allowed_paths?, timeout_ms?}; database {engine ' +
        '(postgres, mysql), host, port, database, read_only (default true)}; email {from, reply_to?}; marketplace ' +
        '{installation_id: an active installation of your organization}',
    }),
    configuration: z.record(z.string(), z.unknown()).openapi({
      description:
        'Checked against connectorType’s schema; a key the type does not name is refused (credentials never go here)',
      example: { url: 'https://hooks.acme.example/finance', events: ['approval.decided'] },
    }),
  })
  .openapi('CreateOrganizationConnector');

export const ListOrganizationConnectorsQuerySchema = listQuerySchema.extend({
  connectorType: z.enum(ORGANIZATION_CONNECTOR_TYPES).optional(),
  status: z.enum(ORGANIZATION_CONNECTOR_STATUSES).optional(),
});

export const OrganizationConnectorParamsSchema = z.object({ connector_id: z.string().min(1).max(200) });

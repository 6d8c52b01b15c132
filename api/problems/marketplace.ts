import type { ProblemTable } from './table';

/** Marketplace: the connector catalog and installations. */
export const MARKETPLACE_PROBLEMS = {
  connector_not_found: {
    status: 404,
    title: 'No such connector',
    remediation: ['Search the catalog with GET /v1/marketplace/connectors for its connector_id'],
  },
  invalid_connector: {
    status: 400,
    title: 'The connector cannot be registered as given',
    remediation: ['Fix the field the detail names: a configuration_schema that compiles, reachable OAuth endpoints'],
  },
  deployment_mode_not_offered: {
    status: 400,
    title: 'The connector is not offered in this deployment mode',
    remediation: ['Choose one of the connector’s deployment_modes (GET /v1/marketplace/connectors/{connector_id})'],
  },
  permissions_not_offered: {
    status: 400,
    title: 'granted_permissions names scopes the connector does not have',
    remediation: ['Grant only scopes among the connector’s oauth.scopes'],
  },
  invalid_configuration: {
    status: 400,
    title: 'The config does not fit the connector’s configuration_schema',
    remediation: ['Read configuration_schema in the connector’s detail and fix the fields listed in errors'],
  },
  installation_not_found: {
    status: 404,
    title: 'No such installation in your organization',
    remediation: ['List your installations with GET /v1/marketplace/installations'],
  },
  installation_not_updatable: {
    status: 409,
    title: 'The installation cannot take this change in its status',
    remediation: [
      'Only an active or suspended installation changes status; install again to reconnect one that needs it',
    ],
  },
  installation_not_active: {
    status: 409,
    title: 'Only an active installation records invocations',
    remediation: [
      'Read the installation (GET /v1/marketplace/installations/{installation_id}) for its status',
      'Resume a suspended one with PATCH, or install again to reconnect one that needs it',
    ],
  },
  asset_not_found: {
    status: 404,
    title: 'No such asset you may see',
    remediation: [
      'List the assets you may see with GET /v1/marketplace/assets; another organization’s are visible only once approved and global',
    ],
  },
  installation_not_verified: {
    status: 403,
    title: 'Only an organization with an active installation of the connector rates it',
    remediation: [
      'Install the connector (POST /v1/marketplace/connectors/{connector_id}/install) and complete its authorization, then rate it with that installation_id',
    ],
  },
} as const satisfies ProblemTable;

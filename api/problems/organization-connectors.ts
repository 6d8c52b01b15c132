import type { ProblemTable } from './table';

/** An organization's own connectors, and the deployment operator's operations. */
export const ORGANIZATION_CONNECTOR_PROBLEMS = {
  organization_connector_not_found: {
    status: 404,
    title: 'No such connector in your organization',
    remediation: ['List your organization’s connectors with GET /v1/connectors'],
  },
  organization_connector_exists: {
    status: 409,
    title: 'Your organization has a connector of this name',
    remediation: ['Choose another connectorName, or read the existing one with GET /v1/connectors'],
  },
  installation_not_usable: {
    status: 422,
    title: 'The installation cannot back a connector',
    remediation: [
      'Name an active installation of your organization (GET /v1/marketplace/installations?status=active)',
      'Reconnect or resume the installation first if it needs it',
    ],
  },
  cloud_mode_required: {
    status: 404,
    title: 'This operation exists only on a deployment running in cloud mode',
    remediation: ['Run the deployment with DEPLOYMENT_MODE=cloud to offer its operator this operation'],
  },
} as const satisfies ProblemTable;

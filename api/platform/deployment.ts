import type { PageRequest } from '../../db/pagination';
import {
  networkVerification,
  protocolCompliance,
  type DeploymentComplianceDeps,
} from '../../services/compliance/deployment';
import { organizationsHealth } from '../../services/health/organizations-health';
import type { HealthDeps } from '../../services/health/platform-health';
import { listRoute } from '../list-route';
import { Problem } from '../problem';
import type { ApiBuilder } from '../route';
import {
  NetworkVerificationSchema,
  OrganizationsHealthPageSchema,
  OrganizationsHealthQuerySchema,
  ProtocolComplianceSchema,
} from '../schemas/deployment';

export interface DeploymentRouteDeps {
  compliance: DeploymentComplianceDeps;
  health: HealthDeps;
  deploymentMode: 'cloud' | 'self-hosted';
}

const SIGNED =
  'Signed with the deployment’s key: `signature` is a compact JWS of the document without it, verifiable with /.well-known/jwks.json.';

/** The deployment's public compliance documents, and its operator's view of every organization's health. */
export function registerDeploymentRoutes(api: ApiBuilder, deps: DeploymentRouteDeps): void {
  api.route({
    method: 'get',
    path: '/v1/deployment/compliance',
    operationId: 'getDeploymentCompliance',
    summary: 'Protocol compliance of this deployment, read from its data now and signed',
    description:
      'Passport and verification counts, the ledger’s sync status and each invariant as this deployment’s tables show it ' +
      '(invariant_checks says what each was read from: no person’s key made or held by the service, no biometric column). ' +
      SIGNED,
    tags: ['Deployment compliance'],
    auth: 'public',
    rateLimit: 'default',
    responses: { 200: { description: 'The signed compliance document', schema: ProtocolComplianceSchema } },
    handler: async ({ res }) => {
      res.set('Cache-Control', 'no-store');
      return { status: 200, body: await protocolCompliance(deps.compliance) };
    },
  });
  api.route({
    method: 'get',
    path: '/v1/deployment/network-verification',
    operationId: 'getNetworkVerification',
    summary: 'Who can verify this deployment’s records from outside, and the risks of a local-only network',
    description: SIGNED,
    tags: ['Deployment compliance'],
    auth: 'public',
    rateLimit: 'default',
    responses: { 200: { description: 'The signed network verification document', schema: NetworkVerificationSchema } },
    handler: async ({ res }) => {
      res.set('Cache-Control', 'no-store');
      return { status: 200, body: await networkVerification(deps.compliance) };
    },
  });
  registerOrganizationsHealth(api, deps);
}

function registerOrganizationsHealth(api: ApiBuilder, deps: DeploymentRouteDeps): void {
  listRoute(api, {
    path: '/v1/admin/health/organizations',
    operationId: 'listOrganizationsHealth',
    summary: 'The health of every organization of the deployment (cloud mode, for its operator)',
    description:
      'The platform’s checks once, and for each organization its bucket and checks: approvals past their expiry, executions ' +
      'failing (half or more of at least 5 in 24 h), executions queued over 15 minutes, connector installations needing a ' +
      'reconnect. An organization is unhealthy when the platform is, degraded when the platform is or one of its checks fails. ' +
      'Only on a deployment running with DEPLOYMENT_MODE=cloud; elsewhere 404 cloud_mode_required.',
    tags: ['Platform health'],
    auth: 'cloud:admin:global',
    rateLimit: 'default',
    query: OrganizationsHealthQuerySchema,
    page: { description: 'A page of organizations with their health', schema: OrganizationsHealthPageSchema },
    sort: { allowed: { created_at: 'created_at', name: 'name' }, fallback: 'created_at', uniqueKey: 'organization_id' },
    responses: { 404: { description: 'cloud_mode_required: this deployment does not run in cloud mode' } },
    list: ({ page }: { page: PageRequest }) => {
      if (deps.deploymentMode !== 'cloud')
        throw new Problem('cloud_mode_required', 'This deployment does not run in cloud mode (DEPLOYMENT_MODE=cloud)');
      return organizationsHealth(deps.health, page);
    },
    view: (row) => row,
  });
}

import { findInstallation, listInstallations } from '../../db/installations';
import { installConnector } from '../../services/connectors/install';
import { uninstallConnector, updateInstallation } from '../../services/connectors/installations';
import type { OAuthClient } from '../../services/connectors/oauth-client';
import type { InstallDeps } from '../../services/connectors/settings';
import { Problem } from '../problem';
import type { ApiBuilder } from '../route';
import { routeGroup, type RouteGroup } from '../route-group';
import { ConnectorIdParamsSchema } from '../schemas/connectors';
import {
  INSTALLATION_SORTABLE,
  InstallationIdParamsSchema,
  InstallationSchema,
  installationView,
  InstallConnectorSchema,
  InstalledSchema,
  ListInstallationsQuerySchema,
  UninstalledSchema,
  UpdatedInstallationSchema,
  UpdateInstallationSchema,
} from '../schemas/installations';

type InstallationRouteDeps = InstallDeps & { oauth: OAuthClient };

/** A caller's organization's installations: install (OAuth or not), uninstall, list, read and update. */
export function registerInstallationRoutes(api: ApiBuilder, deps: InstallationRouteDeps): void {
  const installations = routeGroup(api, { tags: ['Marketplace'], auth: 'platform:write', rateLimit: 'default' });
  registerInstall(installations, deps);
  registerInstallationReads(installations, deps);
  registerInstallationChanges(installations, deps);
}

function registerInstall(installations: RouteGroup, deps: InstallationRouteDeps): void {
  installations.route({
    method: 'post',
    path: '/v1/marketplace/connectors/{connector_id}/install',
    operationId: 'installConnector',
    summary: 'Install a connector in your organization',
    description:
      'A connector without OAuth is active at once. An OAuth connector answers pending_oauth with authorization_url (authorization code ' +
      'with PKCE S256; the state is 32 random bytes, stored hashed, single use) that works until expires_at (CONNECTOR_INSTALL_TTL_SECONDS, ' +
      '30 minutes by default), from this browser or sent by mail or chat. The provider sends the person to GET /v1/oauth/callback; the ' +
      'installation becomes active once the code is exchanged, or authorization_failed (status_reason access_denied, expired or ' +
      'exchange_failed). Installing again keeps the installation id (201 the first time, 200 after) and supersedes a pending attempt.',
    request: { params: ConnectorIdParamsSchema, body: InstallConnectorSchema },
    responses: {
      200: { description: 'Installed again, under the same id', schema: InstalledSchema },
      201: { description: 'Installed', schema: InstalledSchema },
      400: { description: 'deployment_mode_not_offered, permissions_not_offered or invalid_configuration' },
      404: { description: 'connector_not_found' },
    },
    handler: async ({ params, body, principal }) => {
      const outcome = await installConnector(deps, principal, params.connector_id, body);
      if (!outcome.ok && 'errors' in outcome)
        throw new Problem('invalid_configuration', 'The config does not fit the connector’s configuration_schema', {
          errors: outcome.errors,
        });
      if (!outcome.ok) throw new Problem(outcome.code, outcome.detail);
      const { installation, authorization } = outcome;
      return {
        status: installation.attempt === 1 ? 201 : 200,
        body: {
          installation_id: installation.installation_id,
          connector_id: installation.connector_id,
          status: installation.status,
          oauth_state: authorization?.state ?? null,
          authorization_url: authorization?.url ?? null,
          expires_at: authorization?.expires_at.toISOString() ?? null,
        },
        headers: { Location: `/v1/marketplace/installations/${installation.installation_id}` },
      };
    },
  });
}

function registerInstallationReads(installations: RouteGroup, deps: InstallationRouteDeps): void {
  installations.list({
    path: '/v1/marketplace/installations',
    operationId: 'listInstallations',
    summary: 'List your organization’s connector installations',
    auth: 'platform:read',
    query: ListInstallationsQuerySchema,
    page: { description: 'A page of installations', item: InstallationSchema, name: 'InstallationPage' },
    sort: { allowed: INSTALLATION_SORTABLE, fallback: '-installed_at', uniqueKey: 'installation_id' },
    list: ({ query, principal, page }) => listInstallations(deps.db, principal.organization_id, page, query),
    view: installationView,
  });
  installations.get({
    path: '/v1/marketplace/installations/{installation_id}',
    operationId: 'getInstallation',
    summary: 'Read an installation',
    auth: 'platform:read',
    params: InstallationIdParamsSchema,
    found: { description: 'The installation', schema: InstallationSchema },
    missing: { code: 'installation_not_found', detail: ({ params }) => `No installation ${params.installation_id}` },
    find: ({ params, principal }) => findInstallation(deps.db, principal.organization_id, params.installation_id),
    view: installationView,
  });
}

function registerInstallationChanges(installations: RouteGroup, deps: InstallationRouteDeps): void {
  installations.route({
    method: 'delete',
    path: '/v1/marketplace/connectors/{connector_id}/install',
    operationId: 'uninstallConnector',
    summary: 'Uninstall a connector from your organization',
    description:
      'Revokes the provider token where the connector has an RFC 7009 revocation endpoint, deletes the sealed tokens, and records ' +
      'the installation uninstalled (an attempt still waiting for consent ends with it). Installing again later keeps the same id.',
    request: { params: ConnectorIdParamsSchema },
    responses: {
      200: { description: 'Uninstalled', schema: UninstalledSchema },
      404: { description: 'installation_not_found' },
    },
    handler: async ({ params, principal }) => {
      const outcome = await uninstallConnector(deps, principal, params.connector_id);
      if (!outcome.ok)
        throw new Problem(outcome.code, `No installation of ${params.connector_id} in your organization`);
      const { installation } = outcome;
      return {
        status: 200,
        body: {
          connector_id: installation.connector_id,
          status: 'uninstalled',
          uninstalled_at: installation.uninstalled_at!.toISOString(),
        },
      };
    },
  });
  installations.route({
    method: 'patch',
    path: '/v1/marketplace/installations/{installation_id}',
    operationId: 'updateInstallation',
    summary: 'Suspend or resume an installation, or replace its config',
    request: { params: InstallationIdParamsSchema, body: UpdateInstallationSchema },
    responses: {
      200: { description: 'The installation as changed', schema: UpdatedInstallationSchema },
      400: { description: 'invalid_configuration' },
      404: { description: 'installation_not_found' },
      409: { description: 'installation_not_updatable' },
    },
    handler: async ({ params, body, principal }) => {
      const outcome = await updateInstallation(deps, principal, params.installation_id, body);
      if (!outcome.ok && 'errors' in outcome)
        throw new Problem('invalid_configuration', 'The config does not fit the connector’s configuration_schema', {
          errors: outcome.errors,
        });
      if (!outcome.ok) throw new Problem(outcome.code, outcome.detail);
      const { installation } = outcome;
      return {
        status: 200,
        body: {
          installation_id: installation.installation_id,
          status: installation.status,
          config: installation.config,
          updated_at: new Date(installation.updated_at).toISOString(),
        },
      };
    },
  });
}

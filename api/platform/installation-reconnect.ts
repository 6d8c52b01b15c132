import { findInstallation } from '../../db/installations';
import { reconnectLink } from '../../services/connectors/reconnect';
import type { ConnectorSettings } from '../../services/connectors/settings';
import type { Knex } from 'knex';
import type { ApiBuilder } from '../route';
import { routeGroup } from '../route-group';
import { InstallationIdParamsSchema } from '../schemas/installations';
import { z } from '../schemas/zod';

const ReconnectLinkSchema = z
  .object({
    installation_id: z.string(),
    status: z.string(),
    needs_reconnect: z.boolean().openapi({
      description: 'true in needs_reauth or authorization_failed: only the provider’s consent again ends it',
    }),
    reconnect: z.object({
      method: z.literal('POST'),
      url: z.string().openapi({ description: 'The connector’s install: the installation keeps its id' }),
      body: z.object({
        deployment_mode: z.string(),
        config: z.record(z.string(), z.unknown()),
        granted_permissions: z.array(z.string()),
      }),
    }),
  })
  .openapi('ReconnectLink');

/** The reconnect link of an installation, for a client that missed its installation.needs_reauth event. */
export function registerInstallationReconnectRoute(
  api: ApiBuilder,
  deps: { db: Knex; settings: ConnectorSettings },
): void {
  const installations = routeGroup(api, { tags: ['Marketplace'], auth: 'platform:read', rateLimit: 'default' });
  installations.get({
    path: '/v1/marketplace/installations/{installation_id}/reconnect-link',
    operationId: 'getInstallationReconnectLink',
    summary: 'The reconnect link of an installation, as its needs_reauth event carries it',
    description:
      'Sending body to url (POST) starts a new attempt under the same installation id and answers an authorization_url that works ' +
      'from mail or chat; the installation is active again once the person consents (event installation.reconnected).',
    params: InstallationIdParamsSchema,
    found: { description: 'The link', schema: ReconnectLinkSchema },
    missing: { code: 'installation_not_found' },
    find: ({ params, principal }) => findInstallation(deps.db, principal.organization_id, params.installation_id),
    view: (installation) => reconnectLink(deps.settings, installation),
  });
}

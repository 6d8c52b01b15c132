import { findConnector } from '../../db/connectors';
import { changeInstallation, findInstallationOfConnector, lockInstallation } from '../../db/installations';
import { deleteTokens, findTokens } from '../../db/installations-tokens';
import { appendProvenance } from '../../db/ledger';
import type { Installation } from '../../contracts/aggregates/installation';
import { installationRecord } from '../../domain/marketplace/installation-steps';
import { createSecretBox } from '../../lib/secret-box';
import type { Principal } from '../identity/scopes';
import { tokenContext } from './authorization';
import { configurationErrors, type ConfigurationError } from './configuration';
import type { OAuthClient } from './oauth-client';
import type { ConnectorDeps } from './settings';

export type UninstallOutcome =
  { ok: true; installation: Installation; revoked: boolean } | { ok: false; code: 'installation_not_found' };

/**
 * Uninstalls the organization's installation of the connector: the provider is asked to revoke the refresh
 * token (RFC 7009, where the connector has a revocation endpoint; a provider that does not answer does not
 * keep the installation), the sealed tokens are deleted and the installation is uninstalled, with its
 * record and event. An attempt still waiting for consent ends: its workflow's write no longer matches.
 */
export async function uninstallConnector(
  deps: ConnectorDeps & { oauth: OAuthClient },
  principal: Principal,
  connectorId: string,
): Promise<UninstallOutcome> {
  const revoked = await revokeProviderToken(deps, principal.organization_id, connectorId);
  return deps.db.transaction(async (trx) => {
    const installation = await lockInstallation(trx, principal.organization_id, { connector_id: connectorId });
    if (!installation || installation.status === 'uninstalled')
      return { ok: false, code: 'installation_not_found' } as const;
    await deleteTokens(trx, installation.installation_id);
    const uninstalled = await changeInstallation(trx, installation.installation_id, {
      status: 'uninstalled',
      status_reason: null,
      oauth_expires_at: null,
      uninstalled_at: new Date(),
    });
    await appendProvenance(
      trx,
      installationRecord('installation.uninstalled', uninstalled, new Date().toISOString(), { extra: { revoked } }),
    );
    return { ok: true, installation: uninstalled, revoked } as const;
  });
}

async function revokeProviderToken(
  deps: ConnectorDeps & { oauth: OAuthClient },
  organizationId: string,
  connectorId: string,
) {
  const connector = await findConnector(deps.db, connectorId);
  const installationId = (await findInstallationOfConnector(deps.db, organizationId, connectorId))?.installation_id;
  if (!connector?.oauth_client || !installationId) return false;
  const tokens = await findTokens(deps.db, installationId);
  if (!tokens) return false;
  const box = createSecretBox(deps.settings.secretKeys);
  const [token, hint] = tokens.refresh_token_sealed
    ? [box.open(tokens.refresh_token_sealed, tokenContext(installationId, 'refresh')), 'refresh_token']
    : [box.open(tokens.access_token_sealed, tokenContext(installationId, 'access')), 'access_token'];
  return deps.oauth.revoke(connectorId, connector.oauth_client, token, hint).catch(() => false);
}

export type UpdateOutcome =
  | { ok: true; installation: Installation }
  | { ok: false; code: 'installation_not_found' | 'installation_not_updatable'; detail: string }
  | { ok: false; code: 'invalid_configuration'; errors: ConfigurationError[] };

/** Suspends or resumes an installation, or replaces its config (checked against the connector's schema). */
export async function updateInstallation(
  deps: ConnectorDeps,
  principal: Principal,
  installationId: string,
  body: { status?: 'active' | 'suspended' | undefined; config?: Record<string, unknown> | undefined },
): Promise<UpdateOutcome> {
  return deps.db.transaction(async (trx) => {
    const installation = await lockInstallation(trx, principal.organization_id, { installation_id: installationId });
    if (!installation || installation.status === 'uninstalled')
      return { ok: false, code: 'installation_not_found', detail: `No installation ${installationId}` } as const;
    if (body.status && installation.status !== 'active' && installation.status !== 'suspended')
      return {
        ok: false,
        code: 'installation_not_updatable',
        detail: `The installation is ${installation.status}; only an active or suspended one changes status`,
      } as const;
    if (body.config) {
      const connector = await findConnector(trx, installation.connector_id);
      const errors = configurationErrors(connector!.configuration_schema, body.config);
      if (errors.length > 0) return { ok: false, code: 'invalid_configuration', errors } as const;
    }
    const changes = {
      ...(body.status ? { status: body.status } : {}),
      ...(body.config ? { config: body.config } : {}),
    };
    return { ok: true, installation: await changeInstallation(trx, installationId, changes) } as const;
  });
}

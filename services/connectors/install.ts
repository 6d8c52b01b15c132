import { findConnector } from '../../db/connectors';
import { beginInstallAttempt, insertOAuthState } from '../../db/installations';
import type { Installation } from '../../contracts/aggregates/installation';
import type { Connector } from '../../contracts/aggregates/connector';
import {
  INSTALL_CONNECTOR_WORKFLOW,
  installWorkflowId,
  type InstallConnectorInput,
  type InstallConnectorWorkflow,
} from '../../contracts/install-connector';
import { installRefusal, needsAuthorization, type DeploymentMode } from '../../domain/marketplace/connectors';
import { derivedId } from '../../lib/ids';
import { createSecretBox } from '../../lib/secret-box';
import type { Principal } from '../identity/scopes';
import { configurationErrors, type ConfigurationError } from './configuration';
import { authorizationSecrets, stateHash } from './pkce';
import { callbackUrl, type InstallDeps } from './settings';

export interface InstallBody {
  deployment_mode: DeploymentMode;
  config: Record<string, unknown>;
  granted_permissions: string[];
}

export type InstallOutcome =
  | { ok: true; installation: Installation; authorization?: { url: string; state: string; expires_at: Date } }
  | {
      ok: false;
      code: 'connector_not_found' | 'deployment_mode_not_offered' | 'permissions_not_offered';
      detail: string;
    }
  | { ok: false; code: 'invalid_configuration'; errors: ConfigurationError[] };

/** One installation per organization and connector: a re-install finds the same id. */
export function installationIdOf(organizationId: string, connectorId: string): string {
  return derivedId('ins', organizationId, connectorId);
}

/**
 * Installs a connector in the caller's organization. Without OAuth it is active at once. With OAuth the
 * attempt is recorded pending_oauth with its state (hashed) and PKCE verifier (sealed) in one transaction,
 * then its workflow is started to wait for the callback until the URL expires; the caller gets the
 * authorization URL to open or send (it works from mail or chat: everything it needs is in the URL).
 */
export async function installConnector(
  deps: InstallDeps,
  principal: Principal,
  connectorId: string,
  body: InstallBody,
): Promise<InstallOutcome> {
  const connector = await findConnector(deps.db, connectorId);
  if (!connector) return { ok: false, code: 'connector_not_found', detail: `No connector ${connectorId}` };
  const refusal = installRefusal(connector, body);
  if (refusal) return { ok: false, ...refusal };
  const errors = configurationErrors(connector.configuration_schema, body.config);
  if (errors.length > 0) return { ok: false, code: 'invalid_configuration', errors };

  const attempt = {
    installation_id: installationIdOf(principal.organization_id, connectorId),
    organization_id: principal.organization_id,
    connector_id: connectorId,
    deployment_mode: body.deployment_mode,
    config: body.config,
    granted_permissions: body.granted_permissions,
    installed_by: principal.actor?.passport_id ?? principal.subject,
  };
  if (!needsAuthorization(connector)) {
    const installation = await deps.db.transaction((trx) =>
      beginInstallAttempt(trx, { ...attempt, status: 'active', oauth_expires_at: null }),
    );
    return { ok: true, installation };
  }
  return beginAuthorization(deps, connector, attempt, body.granted_permissions);
}

async function beginAuthorization(
  deps: InstallDeps,
  connector: Connector,
  attempt: Omit<Parameters<typeof beginInstallAttempt>[1], 'status' | 'oauth_expires_at'>,
  scopes: string[],
): Promise<InstallOutcome> {
  const secrets = authorizationSecrets();
  const expiresAt = new Date(Date.now() + deps.settings.installTtlSeconds * 1000);
  const redirectUri = callbackUrl(deps.settings);
  const box = createSecretBox(deps.settings.secretKeys);
  const installation = await deps.db.transaction(async (trx) => {
    const begun = await beginInstallAttempt(trx, { ...attempt, status: 'pending_oauth', oauth_expires_at: expiresAt });
    await insertOAuthState(trx, {
      state_hash: stateHash(secrets.state),
      installation_id: begun.installation_id,
      attempt: begun.attempt,
      code_verifier_sealed: box.seal(secrets.verifier, begun.installation_id),
      redirect_uri: redirectUri,
      expires_at: expiresAt,
    });
    return begun;
  });
  const input: InstallConnectorInput = {
    installation_id: installation.installation_id,
    attempt: installation.attempt,
    expires_at: expiresAt.toISOString(),
  };
  await deps.temporal.workflow.start<InstallConnectorWorkflow>(INSTALL_CONNECTOR_WORKFLOW, {
    workflowId: installWorkflowId(installation.installation_id, installation.attempt),
    taskQueue: deps.taskQueue,
    args: [input],
    workflowIdConflictPolicy: 'USE_EXISTING',
    workflowIdReusePolicy: 'REJECT_DUPLICATE',
  });
  const url = new URL(connector.oauth_client!.authorization_endpoint);
  url.search = new URLSearchParams({
    response_type: 'code',
    client_id: connector.oauth_client!.client_id,
    redirect_uri: redirectUri,
    scope: scopes.join(' '),
    state: secrets.state,
    code_challenge: secrets.challenge,
    code_challenge_method: 'S256',
  }).toString();
  return {
    ok: true,
    installation,
    authorization: { url: url.toString(), state: secrets.state, expires_at: expiresAt },
  };
}

import { appendProvenance } from '../../db/ledger';
import { findConnector } from '../../db/connectors';
import { endPendingAttempt, findClaimedState, findConnectorIdOfInstallation } from '../../db/installations';
import { putTokens } from '../../db/installations-tokens';
import type { InstallOutcome } from '../../contracts/install-connector';
import type { AuthorizationFailure } from '../../domain/marketplace/connectors';
import { installationRecord } from '../../domain/marketplace/installation-steps';
import type { AuthorizationResult } from '../../domain/marketplace/oauth-callback';
import { createSecretBox } from '../../lib/secret-box';
import type { OAuthClient, ProviderTokens } from './oauth-client';
import type { ConnectorDeps } from './settings';

export interface AttemptRef {
  installation_id: string;
  attempt: number;
}

/** A provider that did not answer (unreachable, 5xx): the activity retries; its retries spent, the attempt fails. */
export class ProviderUnavailableError extends Error {
  override name = 'ProviderUnavailableError';
}

/** Where a token is sealed: bound to its installation and kind, so a sealed value moved elsewhere does not open. */
export const tokenContext = (installationId: string, kind: 'access' | 'refresh') => `${installationId}:${kind}`;

export function sealedTokens(
  deps: ConnectorDeps,
  installationId: string,
  tokens: ProviderTokens,
  keptRefresh?: string | null,
) {
  const box = createSecretBox(deps.settings.secretKeys);
  const refresh = tokens.refresh_token ?? null;
  return {
    installation_id: installationId,
    access_token_sealed: box.seal(tokens.access_token, tokenContext(installationId, 'access')),
    // A provider that does not rotate sends no new refresh token: the one held stays.
    refresh_token_sealed: refresh ? box.seal(refresh, tokenContext(installationId, 'refresh')) : (keptRefresh ?? null),
    token_type: tokens.token_type,
    scope: tokens.scope ?? null,
    expires_at: tokens.expires_in === undefined ? null : new Date(Date.now() + tokens.expires_in * 1000),
  };
}

/**
 * Carries a claimed callback to its end: the person's refusal recorded, or the code exchanged (with the
 * state's PKCE verifier) and the tokens stored, sealed, in the transaction that makes the attempt active.
 * An attempt that no longer waits (superseded by a re-install, or ended) changes nothing.
 */
export async function completeAuthorization(
  deps: ConnectorDeps & { oauth: OAuthClient },
  ref: AttemptRef,
  result: AuthorizationResult,
): Promise<InstallOutcome> {
  if (result.kind === 'denied') return failAttempt(deps, ref, result.reason);
  const state = await findClaimedState(deps.db, ref.installation_id, ref.attempt);
  const connector = state && (await findConnectorOfInstallation(deps, ref.installation_id));
  if (!state || !connector?.oauth_client) return failAttempt(deps, ref, 'exchange_failed');
  const verifier = createSecretBox(deps.settings.secretKeys).open(state.code_verifier_sealed, ref.installation_id);
  const exchanged = await deps.oauth.exchangeCode(
    connector.connector_id,
    connector.oauth_client,
    result.code,
    verifier,
    state.redirect_uri,
  );
  if (!exchanged.ok && !exchanged.refused) throw new ProviderUnavailableError(exchanged.error);
  if (!exchanged.ok) return failAttempt(deps, ref, 'exchange_failed');
  return deps.db.transaction(async (trx) => {
    const active = await endPendingAttempt(trx, ref.installation_id, ref.attempt, { status: 'active' });
    if (!active) return 'superseded';
    await putTokens(trx, sealedTokens(deps, ref.installation_id, exchanged.tokens));
    const step = active.status_reason === 'reconnected' ? 'installation.reconnected' : 'installation.activated';
    await appendProvenance(trx, installationRecord(step, active, new Date().toISOString()));
    return 'active';
  });
}

/** Ends the attempt without tokens, with its record and event; one that no longer waits stays as it is. */
export async function failAttempt(
  deps: ConnectorDeps,
  ref: AttemptRef,
  reason: AuthorizationFailure,
): Promise<InstallOutcome> {
  return deps.db.transaction(async (trx) => {
    const ended = await endPendingAttempt(trx, ref.installation_id, ref.attempt, {
      status: 'authorization_failed',
      reason,
    });
    if (!ended) return 'superseded';
    await appendProvenance(
      trx,
      installationRecord('installation.authorization_failed', ended, new Date().toISOString()),
    );
    return 'authorization_failed';
  });
}

async function findConnectorOfInstallation(deps: ConnectorDeps, installationId: string) {
  const connectorId = await findConnectorIdOfInstallation(deps.db, installationId);
  return connectorId === undefined ? undefined : findConnector(deps.db, connectorId);
}

import { findConnector } from '../../db/connectors';
import { findInstallation, markNeedsReauth } from '../../db/installations';
import { findTokens, lockTokens, storeRefreshedTokens, type SealedTokens } from '../../db/installations-tokens';
import { appendProvenance } from '../../db/ledger';
import { installationRecord } from '../../domain/marketplace/installation-steps';
import { tokenNeedsRefresh } from '../../domain/marketplace/connectors';
import { createSecretBox } from '../../lib/secret-box';
import { sealedTokens, tokenContext } from './authorization';
import type { OAuthClient } from './oauth-client';
import { reconnectUrl } from './reconnect';
import type { ConnectorDeps } from './settings';

/** An access token for a connector's call, or why there is none. Only the connector's call ever sees the token. */
export type TokenAccess =
  | { ok: true; access_token: string; expires_at: Date | null; refreshed: boolean }
  | { ok: false; code: 'installation_not_found' | 'installation_not_active' | 'needs_reauth' | 'provider_unavailable' };

export interface TokenDeps extends ConnectorDeps {
  oauth: OAuthClient;
}

/**
 * The installation's access token, refreshed first when it expires within the refresh-ahead window. One
 * refresh per installation at a time across every process: the refresher locks the token row, re-reads it
 * (a sibling that held the lock may have refreshed already) and only then spends the refresh token; the
 * rotated refresh token is committed before anyone can use the new access token. invalid_grant, read under
 * that lock, means the grant is gone: the installation moves to needs_reauth with an event carrying the
 * reconnect link.
 */
export async function accessTokenFor(
  deps: TokenDeps,
  organizationId: string,
  installationId: string,
): Promise<TokenAccess> {
  const installation = await findInstallation(deps.db, organizationId, installationId);
  if (!installation) return { ok: false, code: 'installation_not_found' };
  if (installation.status === 'needs_reauth') return { ok: false, code: 'needs_reauth' };
  if (installation.status !== 'active') return { ok: false, code: 'installation_not_active' };
  const current = await findTokens(deps.db, installationId);
  if (!current) return { ok: false, code: 'installation_not_active' };
  if (!stale(deps, current)) return opened(deps, current, false);
  const connector = await findConnector(deps.db, installation.connector_id);
  return deps.db.transaction(async (trx) => {
    const locked = await lockTokens(trx, installationId);
    if (!locked) return { ok: false, code: 'installation_not_active' } as const;
    if (!stale(deps, locked)) return opened(deps, locked, false);
    if (!locked.refresh_token_sealed || !connector?.oauth_client) return { ok: false, code: 'needs_reauth' } as const;
    const box = createSecretBox(deps.settings.secretKeys);
    const refreshToken = box.open(locked.refresh_token_sealed, tokenContext(installationId, 'refresh'));
    const refreshed = await deps.oauth.refresh(connector.connector_id, connector.oauth_client, refreshToken);
    if (refreshed.ok) {
      const next = sealedTokens(deps, installationId, refreshed.tokens, locked.refresh_token_sealed);
      await storeRefreshedTokens(trx, next);
      return {
        ok: true,
        access_token: refreshed.tokens.access_token,
        expires_at: next.expires_at,
        refreshed: true,
      } as const;
    }
    if (!refreshed.refused || refreshed.error !== 'invalid_grant')
      return { ok: false, code: 'provider_unavailable' } as const;
    const lost = await markNeedsReauth(trx, installationId);
    if (lost) {
      await appendProvenance(
        trx,
        installationRecord('installation.needs_reauth', lost, new Date().toISOString(), {
          extra: { reconnect: { method: 'POST', url: reconnectUrl(deps.settings, lost.connector_id) } },
        }),
      );
    }
    return { ok: false, code: 'needs_reauth' } as const;
  });
}

function stale(deps: TokenDeps, tokens: SealedTokens): boolean {
  return tokenNeedsRefresh(tokens.expires_at?.getTime() ?? null, Date.now(), deps.settings.refreshAheadSeconds * 1000);
}

function opened(deps: TokenDeps, tokens: SealedTokens, refreshed: boolean): TokenAccess {
  const box = createSecretBox(deps.settings.secretKeys);
  return {
    ok: true,
    access_token: box.open(tokens.access_token_sealed, tokenContext(tokens.installation_id, 'access')),
    expires_at: tokens.expires_at,
    refreshed,
  };
}

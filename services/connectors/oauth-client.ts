import { postJson } from '../../lib/outbound/post';
import { createOutboundGuard } from '../../lib/outbound/url-guard';
import { createSecretBox } from '../../lib/secret-box';
import type { ConnectorOAuthClient } from '../../contracts/aggregates/connector';
import type { ConnectorSettings } from './settings';

/** A provider's token answer (RFC 6749 5.1), the fields this service keeps. */
export interface ProviderTokens {
  access_token: string;
  refresh_token?: string | undefined;
  token_type: string;
  scope?: string | undefined;
  expires_in?: number | undefined;
}

/**
 * A token endpoint's answer: tokens, a refusal the provider stated (RFC 6749 5.2: invalid_grant, …), or no
 * answer worth trusting (unreachable, 5xx, not JSON), which a retry may mend.
 */
export type TokenOutcome =
  | { ok: true; tokens: ProviderTokens }
  | { ok: false; refused: true; error: string }
  | { ok: false; refused: false; error: string };

const RESPONSE_LIMIT_BYTES = 64 * 1024;

/** Calls a provider's endpoints as a confidential client (client_secret_post), through the outbound guard. */
export function createOAuthClient(settings: Pick<ConnectorSettings, 'outbound' | 'secretKeys'>) {
  const guard = createOutboundGuard(settings.outbound.policy);
  const box = createSecretBox(settings.secretKeys);

  const credentials = (connectorId: string, client: ConnectorOAuthClient) => ({
    client_id: client.client_id,
    ...(client.client_secret_sealed ? { client_secret: box.open(client.client_secret_sealed, connectorId) } : {}),
  });

  async function post(url: string, form: Record<string, string>) {
    return postJson(url, new URLSearchParams(form).toString(), {
      headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
      timeoutMs: settings.outbound.timeoutMs,
      guard,
      responseLimitBytes: RESPONSE_LIMIT_BYTES,
    });
  }

  async function tokenRequest(
    connectorId: string,
    client: ConnectorOAuthClient,
    grant: Record<string, string>,
  ): Promise<TokenOutcome> {
    const answer = await post(client.token_endpoint, { ...grant, ...credentials(connectorId, client) });
    const body = parseJson(answer.responseSnippet);
    if (answer.status === undefined || answer.status >= 500 || answer.responseTruncated)
      return {
        ok: false,
        refused: false,
        error: answer.error ?? `the token endpoint answered ${answer.status ?? 'nothing'}`,
      };
    if (answer.status >= 200 && answer.status < 300 && typeof body?.access_token === 'string')
      return { ok: true, tokens: body as unknown as ProviderTokens };
    const error = typeof body?.error === 'string' ? body.error : `http_${answer.status}`;
    return { ok: false, refused: true, error };
  }

  return {
    /** Exchanges an authorization code with its PKCE verifier (RFC 7636 4.5). */
    exchangeCode(
      connectorId: string,
      client: ConnectorOAuthClient,
      code: string,
      verifier: string,
      redirectUri: string,
    ) {
      return tokenRequest(connectorId, client, {
        grant_type: 'authorization_code',
        code,
        code_verifier: verifier,
        redirect_uri: redirectUri,
      });
    },
    refresh(connectorId: string, client: ConnectorOAuthClient, refreshToken: string) {
      return tokenRequest(connectorId, client, { grant_type: 'refresh_token', refresh_token: refreshToken });
    },
    /** RFC 7009: whether the provider took the revocation (a provider without the endpoint is not asked). */
    async revoke(connectorId: string, client: ConnectorOAuthClient, token: string, hint: string): Promise<boolean> {
      if (!client.revocation_endpoint) return false;
      const answer = await post(client.revocation_endpoint, {
        token,
        token_type_hint: hint,
        ...credentials(connectorId, client),
      });
      return answer.status === 200;
    },
  };
}

export type OAuthClient = ReturnType<typeof createOAuthClient>;

function parseJson(text: string | undefined): Record<string, unknown> | undefined {
  if (!text) return undefined;
  try {
    const parsed: unknown = JSON.parse(text);
    return typeof parsed === 'object' && parsed !== null ? (parsed as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

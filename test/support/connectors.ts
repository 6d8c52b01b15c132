import type { OAuthProvider } from './oauth-provider';

/** A connector registration without OAuth, its config checked against a schema with one required field. */
export function plainConnector(name: string, extra: Record<string, unknown> = {}) {
  return {
    name,
    provider: 'Acme',
    description: `${name} moves records between systems`,
    version: '1.0.0',
    publisher: { publisher_id: 'pub_acme', name: 'Acme Inc.', verified: true },
    pricing_model: 'free',
    capabilities: ['records:sync'],
    deployment_modes: ['cloud', 'self-hosted'],
    configuration_schema: {
      type: 'object',
      required: ['workspace'],
      properties: { workspace: { type: 'string', minLength: 1 }, region: { enum: ['eu', 'us'] } },
      additionalProperties: false,
    },
    ...extra,
  };
}

/** A connector whose installs go through the given provider's consent (authorization code with PKCE). */
export function oauthConnector(provider: OAuthProvider, name = 'Chat') {
  return {
    name,
    provider: 'Local OIDC',
    description: 'Reads and posts chat messages',
    version: '2.1.0',
    publisher: { publisher_id: 'pub_local', name: 'Local', verified: false },
    certified: true,
    pricing_model: 'freemium',
    capabilities: ['messages:read'],
    deployment_modes: ['cloud'],
    oauth: { required: true, scopes: ['messages:read', 'messages:write', 'files:read'] },
    oauth_client: { ...provider.endpoints, client_id: provider.clientId, client_secret: provider.clientSecret },
  };
}

import { client } from './http';
import type { OAuthProvider } from './oauth-provider';
import type { Stack } from './stack';

type Caller = ReturnType<typeof client>;

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

/** Installs a plainConnector in the caller's organization, active at once. */
export const installPlain = (as: Caller, connector: string) =>
  as('POST', `/v1/marketplace/connectors/${connector}/install`, {
    json: { deployment_mode: 'cloud', config: { workspace: 'w' }, granted_permissions: [] },
  });

/**
 * The given plain connectors, registered by the cloud operator, and the callers a test of installations needs:
 * a member and a reader of the default organization, and a member of another organization (the outsider).
 */
export async function installationParties(stack: Stack, prefix: string, connectorIds: readonly string[]) {
  const operator = client(stack.baseUrl, await stack.token(['cloud:admin:global'], 'operator'));
  for (const id of connectorIds)
    expect((await operator('PUT', `/v1/marketplace/connectors/${id}`, { json: plainConnector(id) })).status).toBe(200);
  const created = await operator('POST', '/v1/organizations', {
    json: { org_did: `did:web:${prefix}-other.example`, name: 'Other' },
  });
  const writer = ['platform:read', 'platform:write'];
  return {
    member: client(stack.baseUrl, await stack.token(writer, `${prefix}-member`)),
    reader: client(stack.baseUrl, await stack.token(['platform:read'], `${prefix}-reader`)),
    outsider: client(
      stack.baseUrl,
      await stack.token(writer, `${prefix}-outsider`, created.body.organization_id as string),
    ),
  };
}

import type { PlatformServiceDeps } from '../../services/approvals/approvals';
import { listCallbackSigningSecrets, rotateCallbackSigningSecret } from '../../services/executions/callback-secrets';
import { Problem } from '../problem';
import type { ApiBuilder } from '../route';
import { routeGroup } from '../route-group';
import { CallbackSecretListSchema, CallbackSecretSchema } from '../schemas/executions';

/** The secrets that sign an organization's execution callbacks: rotated (shown once), and listed without them. */
export function registerCallbackSecretRoutes(api: ApiBuilder, deps: PlatformServiceDeps): void {
  const secrets = routeGroup(api, { tags: ['Executions'], auth: 'platform:write', rateLimit: 'default' });
  secrets.route({
    method: 'post',
    path: '/v1/callback-secrets',
    operationId: 'rotateCallbackSecret',
    summary: 'Create (or rotate) the secret that signs your executions’ callbacks',
    description:
      'The secret is shown once. Callbacks carry X-Svc-Signature: t=<unix>,v1=<HMAC-SHA256 hex of `<t>.<raw body>`>, one v1 per live secret; ' +
      'after a rotation the previous secrets sign too until previous_secrets_expire_at.',
    // The answer holds the secret, which must not be stored for replay.
    idempotency: false,
    responses: {
      201: { description: 'The new secret', schema: CallbackSecretSchema },
      503: { description: 'SECRETS_ENCRYPTION_KEY is not configured' },
    },
    handler: async ({ principal }) => {
      const rotated = await rotateCallbackSigningSecret(deps.db, principal, {
        graceSeconds: deps.settings.callbackSecretGraceSeconds,
        secretKeys: deps.settings.secretKeys,
      });
      if (!rotated.ok)
        throw new Problem(
          'secrets_unavailable',
          'Callback signing secrets are sealed with SECRETS_ENCRYPTION_KEY, which this deployment has not configured',
        );
      return { status: 201, body: rotated.secret };
    },
  });

  secrets.route({
    method: 'get',
    path: '/v1/callback-secrets',
    operationId: 'listCallbackSecrets',
    summary: 'Your live callback signing secrets (without the secrets)',
    auth: 'platform:read',
    responses: { 200: { description: 'Live secrets, newest first', schema: CallbackSecretListSchema } },
    handler: async ({ principal }) => ({
      status: 200,
      body: { data: await listCallbackSigningSecrets(deps.db, principal.organization_id, principal.id) },
    }),
  });
}

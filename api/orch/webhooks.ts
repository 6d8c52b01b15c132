import type { Knex } from 'knex';
import { findSubscription, listLiveSecrets, listSubscriptions, type SubscriptionRow } from '../../db/webhooks';
import type { WebhookSettings } from '../../services/webhooks/settings';
import {
  changeSubscription,
  createSubscription,
  deleteSubscription,
  rotateSecret,
} from '../../services/webhooks/subscriptions';
import { Problem } from '../problem';
import type { ApiBuilder } from '../route';
import { routeGroup, type RouteGroup } from '../route-group';
import {
  CreatedWebhookSchema,
  CreateWebhookHeadersSchema,
  CreateWebhookRequestSchema,
  ListWebhooksQuerySchema,
  RotatedSecretSchema,
  RotateSecretRequestSchema,
  SubscriptionIdParamsSchema,
  UpdateWebhookRequestSchema,
  WebhookSubscriptionDetailSchema,
  WebhookSubscriptionSchema,
} from '../schemas/webhooks';

export interface WebhookRouteDeps {
  db: Knex;
  settings: WebhookSettings;
}

const iso = (value: Date | null) => (value ? value.toISOString() : null);

export function renderSubscription(row: SubscriptionRow) {
  return {
    subscription_id: row.subscription_id,
    url: row.url,
    events: row.events,
    description: row.description,
    status: row.status,
    disabled_reason: row.disabled_reason,
    disabled_at: iso(row.disabled_at),
    failing_since: iso(row.failing_since),
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}

/** The known refusals of the subscription service, as problems. */
function refusal(
  outcome:
    | { code: 'destination_refused'; reason: string }
    | { code: 'secrets_unavailable' | 'idempotency_key_reused' | 'not_found' },
  subscriptionId?: string,
): Problem {
  switch (outcome.code) {
    case 'destination_refused':
      return new Problem(
        'destination_refused',
        `The URL ${outcome.reason}; OUTBOUND_PRIVATE_ALLOWLIST admits private destinations`,
        {
          errors: [{ field: 'url', code: 'destination_refused', message: outcome.reason }],
        },
      );
    case 'secrets_unavailable':
      return new Problem(
        'secrets_unavailable',
        'Webhook signing secrets are sealed with SECRETS_ENCRYPTION_KEY, which this deployment has not configured',
      );
    case 'idempotency_key_reused':
      return new Problem('idempotency_key_reused', 'This Idempotency-Key created a different subscription');
    default:
      return new Problem(
        'webhook_not_found',
        subscriptionId ? `No webhook subscription ${subscriptionId}` : 'No such webhook subscription',
      );
  }
}

const SORTABLE = { created_at: 'created_at', subscription_id: 'subscription_id', url: 'url' };

/** Webhook subscriptions: created, listed, read, changed, deleted, and their signing secrets rotated. */
export function registerWebhookRoutes(api: ApiBuilder, deps: WebhookRouteDeps): void {
  const webhooks = routeGroup(api, { tags: ['Webhooks'], auth: 'orch:admin', rateLimit: 'default' });
  registerCreation(webhooks, deps);
  registerReads(webhooks, deps);
  registerChanges(webhooks, deps);
  registerSecretRotation(webhooks, deps);
}

function registerCreation(webhooks: RouteGroup, deps: WebhookRouteDeps): void {
  webhooks.route({
    method: 'post',
    path: '/v1/orch/webhooks',
    operationId: 'createWebhook',
    summary: 'Subscribe a URL to kinds of events; the signing secret is shown once',
    description:
      'Deliveries are POSTs of {id, event, created_at, data} signed with X-Svc-Signature: t=<unix>,v1=<hex HMAC-SHA256 of "<t>.<raw body>">. ' +
      'The response is not stored for Idempotency-Key replays (it holds the secret); with a key, a retried create answers 200 with the same subscription and secret null.',
    idempotency: false,
    request: { body: CreateWebhookRequestSchema, headers: CreateWebhookHeadersSchema },
    responses: {
      201: { description: 'Created, with its secret', schema: CreatedWebhookSchema },
      200: {
        description: 'Already created with this Idempotency-Key (secret not shown again)',
        schema: CreatedWebhookSchema,
      },
      409: { description: 'idempotency_key_reused: the Idempotency-Key created a different subscription' },
      422: { description: 'The URL is a private or loopback destination (or does not resolve)' },
      503: { description: 'SECRETS_ENCRYPTION_KEY is not configured' },
    },
    handler: async ({ req, body, principal }) => {
      const outcome = await createSubscription(deps, {
        principal_id: principal.id,
        organization_id: principal.organization_id,
        idempotency_key: req.get('idempotency-key'),
        ...body,
      });
      if (!outcome.ok) throw refusal(outcome);
      const reply = { ...renderSubscription(outcome.subscription), secret: outcome.secret };
      const headers: Record<string, string> = { Location: `/v1/orch/webhooks/${outcome.subscription.subscription_id}` };
      return outcome.replayed
        ? { status: 200, body: reply, headers: { ...headers, 'Idempotent-Replayed': 'true' } }
        : { status: 201, body: reply, headers };
    },
  });
}

function registerReads(webhooks: RouteGroup, deps: WebhookRouteDeps): void {
  webhooks.list({
    path: '/v1/orch/webhooks',
    operationId: 'listWebhooks',
    summary: 'List webhook subscriptions',
    query: ListWebhooksQuerySchema,
    page: { description: 'A page of subscriptions', item: WebhookSubscriptionSchema, name: 'WebhookSubscriptionPage' },
    sort: { allowed: SORTABLE, fallback: 'created_at', uniqueKey: 'subscription_id' },
    list: ({ query, principal, page }) => listSubscriptions(deps.db, principal.organization_id, page, query),
    view: renderSubscription,
  });

  webhooks.get({
    path: '/v1/orch/webhooks/{subscription_id}',
    operationId: 'getWebhook',
    summary: 'Read a webhook subscription and when its secrets expire',
    params: SubscriptionIdParamsSchema,
    found: { description: 'The subscription', schema: WebhookSubscriptionDetailSchema },
    missing: {
      code: 'webhook_not_found',
      description: 'No such subscription',
      detail: ({ params }) => `No webhook subscription ${params.subscription_id}`,
    },
    find: async ({ params, principal }) => {
      const row = await findSubscription(deps.db, params.subscription_id, {
        organizationId: principal.organization_id,
      });
      return row && { row, secrets: await listLiveSecrets(deps.db, row.subscription_id) };
    },
    view: ({ row, secrets }) => ({
      ...renderSubscription(row),
      secrets: secrets.map((secret) => ({
        created_at: secret.created_at.toISOString(),
        expires_at: iso(secret.expires_at),
      })),
    }),
  });
}

function registerChanges(webhooks: RouteGroup, deps: WebhookRouteDeps): void {
  webhooks.route({
    method: 'patch',
    path: '/v1/orch/webhooks/{subscription_id}',
    operationId: 'updateWebhook',
    summary: 'Change the URL, the events or the description; disable or re-enable',
    request: { params: SubscriptionIdParamsSchema, body: UpdateWebhookRequestSchema },
    responses: {
      200: { description: 'The subscription as changed', schema: WebhookSubscriptionSchema },
      404: { description: 'No such subscription' },
      422: { description: 'The URL is a private or loopback destination (or does not resolve)' },
    },
    handler: async ({ params, body, principal }) => {
      const outcome = await changeSubscription(
        deps,
        principal.organization_id,
        params.subscription_id,
        principal.id,
        body,
      );
      if (!outcome.ok) throw refusal(outcome, params.subscription_id);
      return { status: 200, body: renderSubscription(outcome.subscription) };
    },
  });

  webhooks.route({
    method: 'delete',
    path: '/v1/orch/webhooks/{subscription_id}',
    operationId: 'deleteWebhook',
    summary: 'Delete a subscription: deliveries stop and its secrets are destroyed',
    request: { params: SubscriptionIdParamsSchema },
    responses: { 204: { description: 'Deleted' }, 404: { description: 'No such subscription' } },
    handler: async ({ params, principal }) => {
      const outcome = await deleteSubscription(deps, principal.organization_id, params.subscription_id, principal.id);
      if (!outcome.ok) throw refusal(outcome, params.subscription_id);
      return { status: 204 };
    },
  });
}

function registerSecretRotation(webhooks: RouteGroup, deps: WebhookRouteDeps): void {
  webhooks.route({
    method: 'post',
    path: '/v1/orch/webhooks/{subscription_id}/rotate-secret',
    operationId: 'rotateWebhookSecret',
    summary: 'Start a new signing secret; the previous ones keep signing through the overlap',
    description:
      'During the overlap every delivery carries one v1 per live secret in X-Svc-Signature, so a receiver can switch without a rejected delivery.',
    idempotency: false,
    request: { params: SubscriptionIdParamsSchema, body: RotateSecretRequestSchema },
    responses: {
      200: { description: 'The new secret, shown once', schema: RotatedSecretSchema },
      404: { description: 'No such subscription' },
      503: { description: 'SECRETS_ENCRYPTION_KEY is not configured' },
    },
    handler: async ({ params, body, principal }) => {
      const outcome = await rotateSecret(
        deps,
        principal.organization_id,
        params.subscription_id,
        principal.id,
        body.overlap_seconds,
      );
      if (!outcome.ok) throw refusal(outcome, params.subscription_id);
      return {
        status: 200,
        body: {
          subscription_id: params.subscription_id,
          secret: outcome.secret,
          previous_secrets_expire_at: outcome.previous_secrets_expire_at,
        },
      };
    },
  });
}

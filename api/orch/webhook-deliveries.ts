import { findSubscription } from '../../db/webhooks';
import { deliveryFromRow, findDelivery, listAttempts, listDeliveries } from '../../db/webhook-deliveries';
import { replayDelivery, type ReplayDeps } from '../../services/webhooks/replay';
import { Problem } from '../problem';
import type { ApiBuilder } from '../route';
import { routeGroup, type RouteGroup } from '../route-group';
import {
  DeliveryParamsSchema,
  ListDeliveriesQuerySchema,
  SubscriptionIdParamsSchema,
  WebhookDeliveryDetailSchema,
  WebhookDeliverySchema,
  deliveryView,
} from '../schemas/webhooks';

const iso = (value: Date | string | null | undefined) => (value ? new Date(value).toISOString() : null);

const SORTABLE = { created_at: 'created_at', delivery_id: 'delivery_id' };

const REPLAY_REFUSALS = {
  webhook_not_found: 'No such webhook subscription',
  webhook_delivery_not_found: 'No such delivery of this subscription',
  webhook_disabled: 'The subscription is disabled; enable it (PATCH status enabled) before replaying',
  webhook_delivery_in_progress: 'The delivery is still being attempted; replay it once it has succeeded or failed',
} as const;

type StoredAttempt = Awaited<ReturnType<typeof listAttempts>>[number];

function attemptView(attempt: StoredAttempt) {
  return {
    attempt: attempt.attempt,
    url: attempt.url,
    attempted_at: attempt.attempted_at.toISOString(),
    duration_ms: attempt.duration_ms,
    status_code: attempt.status_code,
    error: attempt.error,
    response_snippet: attempt.response_snippet,
    retry_after_seconds: attempt.retry_after_seconds,
    outcome: attempt.outcome,
    next_attempt_at: iso(attempt.next_attempt_at),
  };
}

/** A subscription's deliveries (listed, read with their attempt log) and the replay of one. */
export function registerWebhookDeliveryRoutes(api: ApiBuilder, deps: ReplayDeps): void {
  const deliveries = routeGroup(api, { tags: ['Webhooks'], auth: 'orch:admin', rateLimit: 'default' });
  registerDeliveryReads(deliveries, deps);
  registerReplay(deliveries, deps);
}

function registerDeliveryReads(deliveries: RouteGroup, deps: ReplayDeps): void {
  deliveries.list({
    path: '/v1/orch/webhooks/{subscription_id}/deliveries',
    operationId: 'listWebhookDeliveries',
    summary: 'The deliveries of a subscription, newest first',
    params: SubscriptionIdParamsSchema,
    query: ListDeliveriesQuerySchema,
    page: { description: 'A page of deliveries', item: WebhookDeliverySchema, name: 'WebhookDeliveryPage' },
    responses: { 404: { description: 'No such subscription' } },
    sort: { allowed: SORTABLE, fallback: '-created_at', uniqueKey: 'delivery_id' },
    list: async ({ params, query, principal, page }) => {
      // A deleted subscription's deliveries stay readable: their logs are an audit trail.
      const subscription = await findSubscription(deps.db, params.subscription_id, {
        includeDeleted: true,
        organizationId: principal.organization_id,
      });
      if (!subscription) throw new Problem('webhook_not_found', `No webhook subscription ${params.subscription_id}`);
      return listDeliveries(deps.db, params.subscription_id, page, query);
    },
    view: (row) => deliveryView(deliveryFromRow(row)),
  });

  deliveries.get({
    path: '/v1/orch/webhooks/{subscription_id}/deliveries/{delivery_id}',
    operationId: 'getWebhookDelivery',
    summary: 'A delivery with the log of its attempts (status, duration, error, the start of the answer)',
    params: DeliveryParamsSchema,
    found: { description: 'The delivery', schema: WebhookDeliveryDetailSchema },
    missing: {
      code: 'webhook_delivery_not_found',
      description: 'No such subscription or delivery',
      detail: ({ params }) => `No delivery ${params.delivery_id} of subscription ${params.subscription_id}`,
    },
    find: async ({ params, principal }) => {
      const { subscription_id, delivery_id } = params;
      const delivery = await findDelivery(deps.db, principal.organization_id, subscription_id, delivery_id);
      return delivery && { delivery, attempts: await listAttempts(deps.db, delivery.delivery_id) };
    },
    view: ({ delivery, attempts }) => ({
      ...deliveryView(deliveryFromRow(delivery)),
      attempt_log: attempts.map(attemptView),
    }),
  });
}

function registerReplay(deliveries: RouteGroup, deps: ReplayDeps): void {
  deliveries.route({
    method: 'post',
    path: '/v1/orch/webhooks/{subscription_id}/deliveries/{delivery_id}/replay',
    operationId: 'replayWebhookDelivery',
    summary: 'Deliver the event of a finished delivery again, as a new delivery',
    description:
      'The replay has its own delivery_id and attempt log (replay_of names the original) and the same body and X-Svc-Delivery-ID (the event id), ' +
      'signed afresh with the secrets live now; a receiver that deduplicates on X-Svc-Delivery-ID sees the event it knows.',
    request: { params: DeliveryParamsSchema },
    responses: {
      202: {
        description: 'The replay as accepted (pending); its Location shows its progress',
        schema: WebhookDeliverySchema,
      },
      404: { description: 'No such subscription or delivery' },
      409: { description: 'The delivery is still being attempted, or the subscription is disabled' },
    },
    handler: async ({ req, params, principal }) => {
      const outcome = await replayDelivery(deps, {
        ...params,
        principal_id: principal.id,
        organization_id: principal.organization_id,
        idempotency_key: req.get('idempotency-key'),
      });
      if (!outcome.ok) throw new Problem(outcome.code, REPLAY_REFUSALS[outcome.code]);
      return {
        status: 202,
        body: deliveryView(outcome.delivery),
        headers: { Location: `/v1/orch/webhooks/${params.subscription_id}/deliveries/${outcome.delivery.delivery_id}` },
      };
    },
  });
}

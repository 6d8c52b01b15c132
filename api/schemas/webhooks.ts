import { EVENT_KINDS, type EventKind } from '../../domain/provenance/events';
import { ALL_EVENTS, DELIVERY_STATUSES } from '../../domain/webhooks/rules';
import { DeliveryState } from '../../contracts/aggregates/delivery';
import { viewOf } from '../../lib/shape';
import { IdempotencyKeySchema, listQuerySchema, TimestampSchema } from './common';
import { z } from './zod';

const eventKinds = Object.keys(EVENT_KINDS) as [EventKind, ...EventKind[]];

export const EventKindSchema = z
  .enum(eventKinds)
  .openapi('EventKind', { description: 'A kind of event (GET /v1/events lists them as they happen)' });

const SubscribedEventSchema = z
  .enum([ALL_EVENTS, ...eventKinds])
  .openapi({ description: 'An event kind, or * for every kind (including kinds added later)' });

const WebhookUrlSchema = z
  .url({ protocol: /^https?$/, message: 'must be an absolute http or https URL' })
  .max(2048)
  .refine((url) => {
    // Refinements run even when the URL check above has failed; that failure is reported already.
    if (!URL.canParse(url)) return true;
    const { username, password } = new URL(url);
    return !username && !password;
  }, 'must not carry credentials')
  .openapi({
    description:
      'Where deliveries are POSTed. Private and loopback destinations are refused unless OUTBOUND_PRIVATE_ALLOWLIST admits them.',
    example: 'https://hooks.example.com/handoff',
  });

export const SubscriptionIdParamsSchema = z.object({ subscription_id: z.string().min(1).max(100) });
export const DeliveryParamsSchema = SubscriptionIdParamsSchema.extend({ delivery_id: z.string().min(1).max(100) });

export const CreateWebhookRequestSchema = z
  .object({
    url: WebhookUrlSchema,
    events: z.array(SubscribedEventSchema).min(1).max(50),
    description: z.string().max(500).optional(),
  })
  .strict()
  .openapi('CreateWebhookRequest');

export const CreateWebhookHeadersSchema = z.object({
  'idempotency-key': IdempotencyKeySchema.optional().openapi({
    description:
      'Makes a retry safe: the subscription id derives from it, and a retry answers 200 with the same subscription and secret null',
  }),
});

export const UpdateWebhookRequestSchema = z
  .object({
    url: WebhookUrlSchema.optional(),
    events: z.array(SubscribedEventSchema).min(1).max(50).optional(),
    description: z.string().max(500).nullable().optional(),
    status: z.enum(['enabled', 'disabled']).optional().openapi({
      description: 'enabled also re-enables an endpoint the service disabled, and clears its run of failures',
    }),
  })
  .strict()
  .refine(
    (body) => Object.values<unknown>(body).some((value) => value !== undefined),
    'name at least one of url, events, description, status',
  )
  .openapi('UpdateWebhookRequest');

export const RotateSecretRequestSchema = z
  .object({
    overlap_seconds: z
      .number()
      .int()
      .min(0)
      .max(7 * 24 * 60 * 60)
      .default(24 * 60 * 60)
      .openapi({
        description: 'How long the previous secrets keep signing beside the new one (default a day; 0 ends them now)',
      }),
  })
  .strict()
  .openapi('RotateWebhookSecretRequest');

export const WebhookSubscriptionSchema = z
  .object({
    subscription_id: z.string().openapi({ example: 'whsub_3f0c…' }),
    url: z.string(),
    events: z.array(z.string()),
    description: z.string().nullable(),
    status: z.enum(['enabled', 'disabled']),
    disabled_reason: z.enum(['endpoint_gone', 'failing', 'manual']).nullable().openapi({
      description:
        'endpoint_gone: it answered 410; failing: every attempt failed for WEBHOOK_DISABLE_AFTER_FAILING_SECONDS; manual: disabled through the API',
    }),
    disabled_at: z.string().nullable(),
    failing_since: z
      .string()
      .nullable()
      .openapi({ description: 'Start of the current run of failed attempts; null after any success' }),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .openapi('WebhookSubscription');

export const WebhookSubscriptionDetailSchema = WebhookSubscriptionSchema.extend({
  secrets: z.array(z.object({ created_at: z.string(), expires_at: z.string().nullable() })).openapi({
    description:
      'The secrets that sign deliveries now, newest first (values are never shown again); expires_at ends a rotation overlap',
  }),
}).openapi('WebhookSubscriptionDetail');

export const CreatedWebhookSchema = WebhookSubscriptionSchema.extend({
  secret: z.string().nullable().openapi({
    description:
      'The signing secret (whsec_…), shown only in this response; null when an Idempotency-Key replay finds the subscription already created (rotate to get a new one)',
  }),
}).openapi('CreatedWebhook');

export const RotatedSecretSchema = z
  .object({
    subscription_id: z.string(),
    secret: z.string().openapi({ description: 'The new signing secret, shown only in this response' }),
    previous_secrets_expire_at: z
      .string()
      .openapi({ description: 'Until then deliveries carry one v1 signature per live secret' }),
  })
  .openapi('RotatedWebhookSecret');

export const ListWebhooksQuerySchema = listQuerySchema.extend({
  status: z.enum(['enabled', 'disabled']).optional(),
  event: z.string().optional().openapi({ description: 'Subscriptions that receive this kind (directly or through *)' }),
});

const delivery = viewOf(DeliveryState, { hide: ['version'] });

export const WebhookDeliverySchema = delivery.schema.openapi('WebhookDelivery');

export const deliveryView = delivery.of;

export const WebhookDeliveryDetailSchema = WebhookDeliverySchema.extend({
  attempt_log: z.array(
    z.object({
      attempt: z.number().int(),
      url: z.string().nullable(),
      attempted_at: z.string(),
      duration_ms: z.number().int(),
      status_code: z.number().int().nullable(),
      error: z.string().nullable(),
      response_snippet: z.string().nullable().openapi({ description: 'The first KiB of the answer' }),
      retry_after_seconds: z.number().int().nullable(),
      outcome: z
        .enum(['delivered', 'failed', 'gone', 'refused', 'error'])
        .openapi({ description: 'error: our side failed before anything was sent' }),
      next_attempt_at: z.string().nullable(),
    }),
  ),
}).openapi('WebhookDeliveryDetail');

export const ListDeliveriesQuerySchema = listQuerySchema.extend({
  status: z.enum(DELIVERY_STATUSES).optional(),
  event: z.string().optional(),
  event_id: z.string().optional(),
  created_at__gte: TimestampSchema.optional(),
  created_at__lte: TimestampSchema.optional(),
});

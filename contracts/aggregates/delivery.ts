import { z } from 'zod';
import { DELIVERY_STATUSES, type DeliveryFailureReason } from '../../domain/webhooks/rules';

/**
 * A webhook delivery: one event sent to one subscription, its attempts and how it ended. The deliver-webhook
 * workflow holds it (its id is delivery_id), webhook_deliveries projects it, the API shows it
 * (api/schemas/webhooks.ts); all of them take their fields from here. Versioned so projections apply in order.
 */
export const DeliveryState = z.object({
  delivery_id: z.string(),
  version: z.number().int(),
  subscription_id: z.string(),
  event_id: z.string().meta({ description: 'Also the X-Svc-Delivery-ID header of every attempt and of replays' }),
  event: z.string(),
  status: z.enum(DELIVERY_STATUSES),
  attempts: z.number().int(),
  last_status_code: z.number().int().optional(),
  last_error: z.string().optional(),
  // Documented as a string: the reasons are listed in its description.
  failure_reason: (z.string() as unknown as z.ZodType<DeliveryFailureReason>).optional().meta({
    description:
      'endpoint_gone, destination_refused, retries_exhausted, endpoint_disabled, subscription_disabled, subscription_deleted, invalid_data, storage_failed',
  }),
  next_attempt_at: z.string().optional(),
  replay_of: z.string().optional().meta({ description: 'The delivery this one replays' }),
  created_at: z.string(),
  updated_at: z.string(),
  completed_at: z.string().optional(),
});
export type DeliveryState = z.infer<typeof DeliveryState>;

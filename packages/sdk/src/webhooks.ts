import { createHmac, timingSafeEqual } from 'node:crypto';

/** The header a Handoff webhook delivery carries: `t=<unix seconds>,v1=<hex>[,v1=<hex>…]`, one v1 per live secret. */
export const SIGNATURE_HEADER = 'x-svc-signature';

export type WebhookCheck =
  | { ok: true; timestamp: number }
  | { ok: false; reason: 'malformed' | 'timestamp_out_of_tolerance' | 'no_matching_signature' };

/**
 * Verifies a delivery the way a subscriber must: HMAC-SHA256 of `<t>.<raw body>` keyed with the whole secret
 * (whsec_… included), hex, compared in constant time with every v1 of the header; a timestamp further than
 * toleranceSeconds (300) from now is refused, so that a captured delivery cannot be replayed later. Pass the
 * body exactly as received, before any JSON parsing.
 */
export function verifyWebhook(
  header: string | null | undefined,
  rawBody: string,
  secret: string,
  options: { toleranceSeconds?: number; nowSeconds?: number } = {},
): WebhookCheck {
  if (!header) return { ok: false, reason: 'malformed' };
  const parts = header.split(',').map((part) => part.trim().split('='));
  const timestamp = Number(parts.find(([key]) => key === 't')?.[1]);
  const candidates = parts
    .filter(([key, value]) => key === 'v1' && value !== undefined && /^[0-9a-f]{64}$/.test(value))
    .map(([, value]) => value!);
  if (!Number.isInteger(timestamp) || candidates.length === 0) return { ok: false, reason: 'malformed' };
  const now = options.nowSeconds ?? Math.floor(Date.now() / 1000);
  if (Math.abs(now - timestamp) > (options.toleranceSeconds ?? 300))
    return { ok: false, reason: 'timestamp_out_of_tolerance' };
  const expected = createHmac('sha256', secret).update(`${timestamp}.${rawBody}`, 'utf8').digest();
  const matches = candidates.some((candidate) => timingSafeEqual(Buffer.from(candidate, 'hex'), expected));
  return matches ? { ok: true, timestamp } : { ok: false, reason: 'no_matching_signature' };
}

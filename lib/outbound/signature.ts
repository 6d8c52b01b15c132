import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/** `t=<unix seconds>,v1=<hex>[,v1=<hex>…]`: one v1 per live secret, so a rotation overlaps without a gap. */
export const SIGNATURE_HEADER = 'X-Svc-Signature';
/** The same value on every attempt of one delivery, so a receiver can drop duplicates. */
export const DELIVERY_ID_HEADER = 'X-Svc-Delivery-ID';
export const SIGNING_SECRET_PREFIX = 'whsec_';

/** A new signing secret: 32 random bytes, shown to its owner once. */
export function newSigningSecret(): string {
  return `${SIGNING_SECRET_PREFIX}${randomBytes(32).toString('base64url')}`;
}

/** The exact string that is signed: the timestamp, a dot, and the raw request body as sent. */
export function signedPayload(timestamp: number, rawBody: string): string {
  return `${timestamp}.${rawBody}`;
}

/** HMAC-SHA256 of the signed payload, keyed with the whole secret string (prefix included), as hex. */
export function sign(secret: string, timestamp: number, rawBody: string): string {
  return createHmac('sha256', secret).update(signedPayload(timestamp, rawBody), 'utf8').digest('hex');
}

export function signatureHeader(secrets: readonly string[], timestamp: number, rawBody: string): string {
  if (secrets.length === 0) throw new Error('signing needs at least one secret');
  return [`t=${timestamp}`, ...secrets.map((secret) => `v1=${sign(secret, timestamp, rawBody)}`)].join(',');
}

export type SignatureCheck =
  | { ok: true; timestamp: number }
  | { ok: false; reason: 'malformed' | 'timestamp_out_of_tolerance' | 'no_matching_signature' };

/**
 * What a receiver does: parse the header, refuse a timestamp outside the tolerance (replays), and accept
 * when any v1 matches, compared in constant time.
 */
export function verifySignature(
  header: string | null | undefined,
  rawBody: string,
  secret: string,
  options: { toleranceSeconds?: number; nowSeconds?: number } = {},
): SignatureCheck {
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
  const expected = Buffer.from(sign(secret, timestamp, rawBody), 'hex');
  const matches = candidates.some((candidate) => timingSafeEqual(Buffer.from(candidate, 'hex'), expected));
  return matches ? { ok: true, timestamp } : { ok: false, reason: 'no_matching_signature' };
}

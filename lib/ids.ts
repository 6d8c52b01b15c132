import { createHash, randomUUID } from 'node:crypto';

const uuidFromHex = (hex: string) =>
  `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`;
const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

/** 32 hex digits standing for a caller's Idempotency-Key: the same for the same caller and key, and only for them. */
export function idempotencyDigest(principalId: string, idempotencyKey: string): string {
  return sha256(`${principalId}\n${idempotencyKey}`).slice(0, 32);
}

/**
 * A resource id, which is also its workflow id. With an Idempotency-Key it derives from the caller and the
 * key, so a retry after a crash anywhere between the workflow's start and the reply reaches the same
 * resource instead of creating a second one.
 */
export function resourceId(prefix: string, principalId: string, idempotencyKey?: string): string {
  return `${prefix}_${idempotencyKey ? uuidFromHex(idempotencyDigest(principalId, idempotencyKey)) : randomUUID()}`;
}

/** A Temporal Update's id from the caller and its Idempotency-Key, so a retried request gets the first answer; without a key, none. */
export function updateIdFor(principalId: string, idempotencyKey: string | undefined): string | undefined {
  return idempotencyKey ? `upd_${idempotencyDigest(principalId, idempotencyKey)}` : undefined;
}

/** The id of a resource that belongs to another one (an execution's approval, a DAG node's execution). */
export function derivedId(prefix: string, parentId: string, part: string): string {
  return `${prefix}_${uuidFromHex(sha256(`${parentId}\n${part}`))}`;
}

/** The DID a caller acts as until delegation tokens carry one: stable per principal. */
export function principalDid(principalId: string): string {
  return `did:web:handoff.local:principals:${encodeURIComponent(principalId)}`;
}

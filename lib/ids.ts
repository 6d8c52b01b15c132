import { createHash, randomUUID } from 'node:crypto';

const uuidFromHex = (hex: string) => `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`;
const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

/**
 * A resource id, which is also its workflow id. With an Idempotency-Key it derives from the caller and the
 * key, so a retry after a crash anywhere between the workflow's start and the reply reaches the same
 * resource instead of creating a second one.
 */
export function resourceId(prefix: string, principalId: string, idempotencyKey?: string): string {
  return `${prefix}_${idempotencyKey ? uuidFromHex(sha256(`${principalId}\n${idempotencyKey}`)) : randomUUID()}`;
}

/** The id of a resource that belongs to another one (an execution's approval, a DAG node's execution). */
export function derivedId(prefix: string, parentId: string, part: string): string {
  return `${prefix}_${uuidFromHex(sha256(`${parentId}\n${part}`))}`;
}

/** The DID a caller acts as until delegation tokens carry one: stable per principal. */
export function principalDid(principalId: string): string {
  return `did:web:handoff.local:principals:${encodeURIComponent(principalId)}`;
}

import type { JWTPayload } from 'jose';

/**
 * Signed tokens whose signature and claims were verified, until they expire: a client sends the same token on
 * every call, and checking an Ed25519 signature again each time is most of what authentication costs. What
 * can change while a token lives (a revoked account, a retired credential, its signing key withdrawn) is
 * still checked on every call.
 * Bounded; the oldest entry goes first.
 */
export interface VerifiedTokenCache {
  get(token: string): JWTPayload | undefined;
  set(token: string, payload: JWTPayload): void;
}

export function createVerifiedTokenCache(maxEntries = 10_000): VerifiedTokenCache {
  const entries = new Map<string, JWTPayload>();
  return {
    get: (token) => entries.get(token),
    set(token, payload) {
      if (entries.size >= maxEntries) entries.delete(entries.keys().next().value!);
      entries.set(token, payload);
    },
  };
}

/** Whether a payload has expired: jose's own rule, from the second of exp on. */
export function hasExpired(payload: JWTPayload, nowMs = Date.now()): boolean {
  return payload.exp !== undefined && payload.exp <= Math.floor(nowMs / 1000);
}

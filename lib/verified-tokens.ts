import { decodeProtectedHeader, type JWTPayload } from 'jose';

/** What a token's protected header says that its checks read: its type, and the id of the key that signed it. */
export interface VerifiedHeader {
  typ: string | undefined;
  kid: string | undefined;
}

/**
 * Signed tokens whose signature and claims were verified, until they expire: a client sends the same token on
 * every call, and checking an Ed25519 signature again each time is most of what authentication costs. What
 * can change while a token lives (a revoked account, a retired credential, its signing key withdrawn) is
 * still checked on every call.
 * Bounded; the oldest entry goes first.
 */
export interface VerifiedTokenCache {
  get(token: string): JWTPayload | undefined;
  /** The header of a token verified before, when it was kept: the same token need not be decoded again. */
  headerOf(token: string): VerifiedHeader | undefined;
  set(token: string, payload: JWTPayload, header?: VerifiedHeader): void;
}

export function createVerifiedTokenCache(maxEntries = 10_000): VerifiedTokenCache {
  const entries = new Map<string, { payload: JWTPayload; header: VerifiedHeader | undefined }>();
  return {
    get: (token) => entries.get(token)?.payload,
    headerOf: (token) => entries.get(token)?.header,
    set(token, payload, header) {
      if (entries.size >= maxEntries) entries.delete(entries.keys().next().value!);
      entries.set(token, { payload, header });
    },
  };
}

/**
 * The token's protected header: as kept with the token when it was verified before (a client sends the same token on
 * every call), else decoded; undefined when it does not decode.
 */
export function protectedHeaderOf(verified: VerifiedTokenCache | undefined, token: string): VerifiedHeader | undefined {
  const known = verified?.headerOf(token);
  if (known) return known;
  try {
    const { typ, kid } = decodeProtectedHeader(token);
    return { typ, kid };
  } catch {
    return undefined;
  }
}

/** Whether a payload has expired: jose's own rule, from the second of exp on. */
export function hasExpired(payload: JWTPayload, nowMs = Date.now()): boolean {
  return payload.exp !== undefined && payload.exp <= Math.floor(nowMs / 1000);
}

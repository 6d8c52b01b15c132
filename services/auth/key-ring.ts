import { calculateJwkThumbprint, exportJWK, generateKeyPair, importJWK, type JWK, type KeyLike } from 'jose';
import type { Knex } from 'knex';
import { findPublishedSigningKeys, insertSigningKey, retireSigningKeysExcept, type SigningKeyRow } from '../../db/credentials';

export const SIGNING_ALGORITHM = 'EdDSA';

interface LoadedKey {
  kid: string;
  publicJwk: JWK;
  publicKey: KeyLike | Uint8Array;
  privateJwk: JWK;
  retired: boolean;
}

/**
 * The deployment's Ed25519 signing keys, shared by every API instance through Postgres. Signing and the
 * JWKS read the table each time, so a rotation shows at once on every instance; verification, which every
 * request does, uses a short-lived cache, and an unknown kid (a key just rotated in) forces a reload.
 */
export interface KeyRing {
  signingKey(): Promise<{ kid: string; privateKey: KeyLike | Uint8Array }>;
  verificationKey(kid: string): Promise<KeyLike | Uint8Array | undefined>;
  jwks(): Promise<{ keys: JWK[] }>;
}

async function newKeyPair(): Promise<{ kid: string; publicJwk: JWK; privateJwk: JWK }> {
  const { publicKey, privateKey } = await generateKeyPair(SIGNING_ALGORITHM, { crv: 'Ed25519', extractable: true });
  const publicJwk = await exportJWK(publicKey);
  const kid = await calculateJwkThumbprint(publicJwk);
  return { kid, publicJwk: { ...publicJwk, kid, alg: SIGNING_ALGORITHM, use: 'sig' }, privateJwk: { ...(await exportJWK(privateKey)), kid } };
}

/** Creates the first key of a fresh deployment; a no-op when one is active. */
export async function ensureSigningKey(db: Knex, now = new Date()): Promise<void> {
  const keys = await findPublishedSigningKeys(db, now);
  if (keys.some((key) => key.retired_at === null)) return;
  const key = await newKeyPair();
  await insertSigningKey(db, { kid: key.kid, public_jwk: key.publicJwk, private_jwk: key.privateJwk });
}

/** A new key signs from now on; old keys stay published until the longest-lived token they signed expires. */
export async function rotateSigningKey(db: Knex, options: { maxTokenTtlSeconds: number; now?: Date }): Promise<string> {
  const now = options.now ?? new Date();
  const key = await newKeyPair();
  await db.transaction(async (trx) => {
    await insertSigningKey(trx, { kid: key.kid, public_jwk: key.publicJwk, private_jwk: key.privateJwk });
    await retireSigningKeysExcept(trx, key.kid, now, new Date(now.getTime() + options.maxTokenTtlSeconds * 1000));
  });
  return key.kid;
}

export function createKeyRing(db: Knex, options: { cacheTtlMs?: number; clock?: () => Date } = {}): KeyRing {
  const cacheTtlMs = options.cacheTtlMs ?? 60_000;
  const clock = options.clock ?? (() => new Date());
  let cache: { loadedAt: number; keys: LoadedKey[] } | undefined;

  async function load(): Promise<LoadedKey[]> {
    const rows: SigningKeyRow[] = await findPublishedSigningKeys(db, clock());
    const keys = await Promise.all(
      rows.map(async (row) => ({
        kid: row.kid,
        publicJwk: row.public_jwk,
        publicKey: await importJWK(row.public_jwk, SIGNING_ALGORITHM),
        privateJwk: row.private_jwk,
        retired: row.retired_at !== null,
      })),
    );
    cache = { loadedAt: Date.now(), keys };
    return keys;
  }
  async function keys(): Promise<LoadedKey[]> {
    if (cache && Date.now() - cache.loadedAt < cacheTtlMs) return cache.keys;
    return load();
  }
  let reloading: Promise<LoadedKey[]> | undefined;
  /** At most one reload a second, shared by all who wait for it: bounds what a stream of forged kids can cost. */
  function throttledReload(): Promise<LoadedKey[]> {
    reloading ??= (async () => {
      const wait = cache ? cache.loadedAt + 1000 - Date.now() : 0;
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
      return load();
    })().finally(() => {
      reloading = undefined;
    });
    return reloading;
  }

  return {
    async signingKey() {
      const active = (await load()).find((key) => !key.retired);
      if (!active) throw new Error('No active signing key; start the service once or run `npm run keys:rotate`');
      return { kid: active.kid, privateKey: await importJWK(active.privateJwk, SIGNING_ALGORITHM) };
    },
    async verificationKey(kid) {
      const known = (await keys()).find((key) => key.kid === kid);
      if (known) return known.publicKey;
      return (await throttledReload()).find((key) => key.kid === kid)?.publicKey;
    },
    async jwks() {
      return { keys: (await load()).map((key) => key.publicJwk) };
    },
  };
}

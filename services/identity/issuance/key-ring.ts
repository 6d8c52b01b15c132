import { calculateJwkThumbprint, exportJWK, generateKeyPair, importJWK, type JWK, type KeyLike } from 'jose';
import type { Knex } from 'knex';
import {
  findPublishedSigningKeys,
  findSigningKeySecrets,
  insertSigningKey,
  retireSigningKeysExcept,
  sealSigningKey,
  type SigningKeyRow,
} from '../../../db/credentials';
import { createSecretBox, SecretsUnavailableError, type SecretBox, type SecretKeys } from '../../../lib/secret-box';

export const SIGNING_ALGORITHM = 'EdDSA';

interface LoadedKey {
  kid: string;
  publicJwk: JWK;
  publicKey: KeyLike | Uint8Array;
  /** The private JWK in the clear (a row not sealed yet), or sealed, opened only to sign. */
  privateJwk: JWK | null;
  sealedPrivateKey: string | null;
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

/** The secret box's associated data: a sealed key opens only as the key of its own kid. */
const sealingContext = (kid: string) => `signing_key:${kid}`;

/** The box that seals private keys, when SECRETS_ENCRYPTION_KEY is configured. */
function sealingBox(secretKeys: SecretKeys | undefined): SecretBox | undefined {
  return secretKeys ? createSecretBox(secretKeys) : undefined;
}

/** How a new private key is stored: sealed when a secrets key is configured, else in the clear (as before sealing existed). */
function privateKeyColumns(
  box: SecretBox | undefined,
  kid: string,
  privateJwk: JWK,
): Pick<SigningKeyRow, 'private_jwk' | 'sealed_private_key'> {
  if (box?.canSeal)
    return { private_jwk: null, sealed_private_key: box.seal(JSON.stringify(privateJwk), sealingContext(kid)) };
  return { private_jwk: privateJwk, sealed_private_key: null };
}

async function newKeyPair(
  box: SecretBox | undefined,
): Promise<Pick<SigningKeyRow, 'kid' | 'public_jwk' | 'private_jwk' | 'sealed_private_key'>> {
  const { publicKey, privateKey } = await generateKeyPair(SIGNING_ALGORITHM, { crv: 'Ed25519', extractable: true });
  const publicJwk = await exportJWK(publicKey);
  const kid = await calculateJwkThumbprint(publicJwk);
  return {
    kid,
    public_jwk: { ...publicJwk, kid, alg: SIGNING_ALGORITHM, use: 'sig' },
    ...privateKeyColumns(box, kid, { ...(await exportJWK(privateKey)), kid }),
  };
}

export interface SigningKeyOptions {
  /** SECRETS_ENCRYPTION_KEY (and previous keys): private keys are sealed with it; unset, they stay in the clear. */
  secretKeys?: SecretKeys | undefined;
  /** Told when keys stay in the clear for want of a secrets key. */
  warn?: (message: string) => void;
  now?: Date;
}

/**
 * Seals every private key in the clear (rows from before sealing) and seals again, with the current secrets
 * key, every key a previous one sealed, so that the previous key can be retired. A key sealed with a secrets
 * key no longer configured is left as it is, and told.
 */
async function sealSigningKeys(db: Knex, box: SecretBox, warn: (message: string) => void): Promise<void> {
  for (const row of await findSigningKeySecrets(db)) {
    if (row.sealed_private_key && box.sealedWithCurrent(row.sealed_private_key)) continue;
    try {
      const privateJwk =
        row.private_jwk ?? (JSON.parse(box.open(row.sealed_private_key!, sealingContext(row.kid))) as JWK);
      await sealSigningKey(db, row.kid, box.seal(JSON.stringify(privateJwk), sealingContext(row.kid)));
    } catch (error) {
      if (!(error instanceof SecretsUnavailableError)) throw error;
      warn(`The signing key ${row.kid} stays sealed with a secrets key that is no longer configured: ${error.message}`);
    }
  }
}

/**
 * At start: seals the private keys with the current secrets key, when one is configured (sealSigningKeys), and
 * creates the first key of a fresh deployment (a no-op when one is active).
 */
export async function ensureSigningKey(db: Knex, options: SigningKeyOptions = {}): Promise<void> {
  const box = sealingBox(options.secretKeys);
  if (box?.canSeal) await sealSigningKeys(db, box, options.warn ?? (() => undefined));
  const keys = await findPublishedSigningKeys(db, options.now ?? new Date());
  if (!keys.some((key) => key.retired_at === null)) await insertSigningKey(db, await newKeyPair(box));
  if (!box?.canSeal)
    options.warn?.('SECRETS_ENCRYPTION_KEY is not configured: the access-token signing keys are stored unsealed');
}

/** A new key signs from now on; old keys stay published until the longest-lived token they signed expires. */
export async function rotateSigningKey(
  db: Knex,
  options: { maxTokenTtlSeconds: number; now?: Date; secretKeys?: SecretKeys | undefined },
): Promise<string> {
  const now = options.now ?? new Date();
  const key = await newKeyPair(sealingBox(options.secretKeys));
  await db.transaction(async (trx) => {
    await insertSigningKey(trx, key);
    await retireSigningKeysExcept(trx, key.kid, now, new Date(now.getTime() + options.maxTokenTtlSeconds * 1000));
  });
  return key.kid;
}

/** The private JWK of a key: in the clear, or opened with the configured secrets key. */
function privateJwkOf(key: LoadedKey, box: SecretBox | undefined): JWK {
  if (key.privateJwk) return key.privateJwk;
  if (!box)
    throw new Error(
      `The signing key ${key.kid} is sealed: configure SECRETS_ENCRYPTION_KEY (the key that sealed it) to sign`,
    );
  return JSON.parse(box.open(key.sealedPrivateKey!, sealingContext(key.kid))) as JWK;
}

/** secretKeys: to open sealed private keys; without them the ring verifies, and signs only with a key in the clear. */
export function createKeyRing(
  db: Knex,
  options: { cacheTtlMs?: number; clock?: () => Date; secretKeys?: SecretKeys | undefined } = {},
): KeyRing {
  const cacheTtlMs = options.cacheTtlMs ?? 60_000;
  const clock = options.clock ?? (() => new Date());
  const box = sealingBox(options.secretKeys);
  let cache: { loadedAt: number; keys: LoadedKey[] } | undefined;

  async function load(): Promise<LoadedKey[]> {
    const rows: SigningKeyRow[] = await findPublishedSigningKeys(db, clock());
    const keys = await Promise.all(
      rows.map(async (row) => ({
        kid: row.kid,
        publicJwk: row.public_jwk,
        publicKey: await importJWK(row.public_jwk, SIGNING_ALGORITHM),
        privateJwk: row.private_jwk,
        sealedPrivateKey: row.sealed_private_key,
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
      return { kid: active.kid, privateKey: await importJWK(privateJwkOf(active, box), SIGNING_ALGORITHM) };
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

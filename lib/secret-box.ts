import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';

/**
 * Seals secrets the service must read back in the clear later (webhook signing secrets: HMAC needs the
 * secret itself, so a hash will not do) with AES-256-GCM under a key from the configuration. The key id
 * travels with each sealed value, so the key can be rotated: seal with the current key, open with any
 * key still configured. The context (e.g. the owning record's id) is bound as associated data, so a
 * sealed value copied to another row does not open there.
 */
export interface SecretKeys {
  /** Seals and opens; undefined when the deployment has not configured one. */
  current?: Buffer | undefined;
  /** Open only: keys that sealed values before the current one. */
  previous: Buffer[];
}

export class SecretsUnavailableError extends Error {
  override name = 'SecretsUnavailableError';
}

const VERSION = 'v1';
const IV_BYTES = 12;
const TAG_BYTES = 16;

export function secretKeyId(key: Buffer): string {
  return createHash('sha256').update(key).digest('hex').slice(0, 16);
}

/** Parses a configured key: 32 bytes, base64 or base64url. */
export function parseSecretKey(encoded: string): Buffer {
  const key = Buffer.from(encoded.trim(), 'base64');
  if (key.length !== 32)
    throw new Error('a secrets encryption key must be 32 bytes, base64-encoded (e.g. `openssl rand -base64 32`)');
  return key;
}

/** The keys of the configuration (SECRETS_ENCRYPTION_KEY and SECRETS_ENCRYPTION_PREVIOUS_KEYS). */
export function secretKeysFrom(current: string | undefined, previous: readonly string[]): SecretKeys {
  return {
    current: current === undefined ? undefined : parseSecretKey(current),
    previous: previous.map(parseSecretKey),
  };
}

export function createSecretBox(keys: SecretKeys) {
  const byId = new Map(
    [...(keys.current ? [keys.current] : []), ...keys.previous].map((key) => [secretKeyId(key), key]),
  );

  return {
    /** Whether secrets can be sealed at all: false until SECRETS_ENCRYPTION_KEY is configured. */
    get canSeal(): boolean {
      return keys.current !== undefined;
    },

    seal(plaintext: string, context: string): string {
      if (!keys.current) throw new SecretsUnavailableError('SECRETS_ENCRYPTION_KEY is not configured');
      const iv = randomBytes(IV_BYTES);
      const cipher = createCipheriv('aes-256-gcm', keys.current, iv);
      cipher.setAAD(Buffer.from(context, 'utf8'));
      const sealed = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final(), cipher.getAuthTag()]);
      return [VERSION, secretKeyId(keys.current), iv.toString('base64url'), sealed.toString('base64url')].join('.');
    },

    /** Whether the current key sealed the value; one sealed with a previous key is sealed again, so that key can be retired. */
    sealedWithCurrent(sealedValue: string): boolean {
      return keys.current !== undefined && sealedValue.split('.')[1] === secretKeyId(keys.current);
    },

    open(sealedValue: string, context: string): string {
      const [version, keyId, ivText, body] = sealedValue.split('.');
      if (version !== VERSION || !keyId || !ivText || !body) throw new Error('not a sealed secret');
      const key = byId.get(keyId);
      if (!key)
        throw new SecretsUnavailableError(
          `the key ${keyId} that sealed this secret is not configured (SECRETS_ENCRYPTION_KEY / SECRETS_ENCRYPTION_PREVIOUS_KEYS)`,
        );
      const sealed = Buffer.from(body, 'base64url');
      const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(ivText, 'base64url'));
      decipher.setAAD(Buffer.from(context, 'utf8'));
      decipher.setAuthTag(sealed.subarray(sealed.length - TAG_BYTES));
      return Buffer.concat([decipher.update(sealed.subarray(0, sealed.length - TAG_BYTES)), decipher.final()]).toString(
        'utf8',
      );
    },
  };
}

export type SecretBox = ReturnType<typeof createSecretBox>;

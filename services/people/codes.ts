import { createHmac, randomBytes, randomInt, timingSafeEqual } from 'node:crypto';
import { secretKeyId, type SecretKeys } from '../../lib/secret-box';

/** What an employee's linking code is hashed for (the purpose keeps one kind of code from matching another's hash). */
export const LINKING_CODE_PURPOSE = 'employee-linking';

/** Crockford's base32: no I, L, O or U, so a code read aloud or retyped from a message survives. */
const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

/** An employee's linking code: 60 random bits as XXXX-XXXX-XXXX, long enough that guessing one is hopeless. */
export function newLinkingCode(): string {
  const bytes = randomBytes(12);
  const symbols = [...bytes].map((byte) => CROCKFORD[byte & 31]).join('');
  return `${symbols.slice(0, 4)}-${symbols.slice(4, 8)}-${symbols.slice(8, 12)}`;
}

/** The spec's e-mail verification code: six digits, uniformly drawn. */
export function newVerificationCode(): string {
  return String(randomInt(0, 1_000_000)).padStart(6, '0');
}

/** The code as it is hashed: case, spaces and dashes a person may add or drop do not matter. */
function normalized(code: string): string {
  return code.toUpperCase().replace(/[\s-]/g, '');
}

export interface CodeHash {
  hash: string;
  hmac_key_id: string;
}

/**
 * Codes are stored as HMAC-SHA256 under the secrets key (SECRETS_ENCRYPTION_KEY), never in the clear: a read of
 * the table gives no code, and a 6-digit code cannot be found from its hash without the key. The key's id is
 * kept beside the hash, so a rotated key (kept among the previous ones) still checks what it hashed.
 */
export function createCodeHasher(keys: SecretKeys) {
  const byId = new Map(
    [...(keys.current ? [keys.current] : []), ...keys.previous].map((key) => [secretKeyId(key), key]),
  );
  const hmac = (key: Buffer, purpose: string, code: string) =>
    createHmac('sha256', key)
      .update(`handoff:${purpose}:${normalized(code)}`)
      .digest('base64url');
  return {
    get available(): boolean {
      return keys.current !== undefined;
    },
    /** The hash to store, under the current key. */
    hash(purpose: string, code: string): CodeHash {
      if (!keys.current) throw new Error('SECRETS_ENCRYPTION_KEY is not configured');
      return { hash: hmac(keys.current, purpose, code), hmac_key_id: secretKeyId(keys.current) };
    },
    /** The code's hash under every configured key, to find a stored one by it. */
    candidates(purpose: string, code: string): string[] {
      return [...byId.values()].map((key) => hmac(key, purpose, code));
    },
    /** Whether the code is the one stored, compared in constant time. */
    matches(purpose: string, code: string, stored: CodeHash): boolean {
      const key = byId.get(stored.hmac_key_id);
      if (!key) return false;
      const given = Buffer.from(hmac(key, purpose, code));
      const expected = Buffer.from(stored.hash);
      return given.length === expected.length && timingSafeEqual(given, expected);
    },
  };
}
export type CodeHasher = ReturnType<typeof createCodeHasher>;

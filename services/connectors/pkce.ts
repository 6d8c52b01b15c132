import { createHash, randomBytes } from 'node:crypto';

/** 32 random bytes: the state's and the verifier's entropy (RFC 7636 asks at least 256 bits of the verifier). */
const RANDOM_BYTES = 32;

/** An authorization request's secrets: the state the browser carries back, and the PKCE pair. */
export function authorizationSecrets(): { state: string; verifier: string; challenge: string } {
  const verifier = randomBytes(RANDOM_BYTES).toString('base64url');
  return {
    state: randomBytes(RANDOM_BYTES).toString('base64url'),
    verifier,
    challenge: createHash('sha256').update(verifier).digest('base64url'),
  };
}

/** What is stored of a state: its SHA-256, so that the table alone cannot complete anyone's install. */
export function stateHash(state: string): string {
  return createHash('sha256').update(state).digest('hex');
}

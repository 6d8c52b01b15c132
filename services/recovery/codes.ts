import { createHmac } from 'node:crypto';
import { SecretsUnavailableError, type SecretKeys } from '../../lib/secret-box';

const CODE_DIGITS = 8;

/** A key of its own for recovery codes, derived from the deployment's secrets key. */
function codeKey(keys: SecretKeys): Buffer {
  if (!keys.current)
    throw new SecretsUnavailableError('SECRETS_ENCRYPTION_KEY is not configured: no recovery code can be made');
  return createHmac('sha256', keys.current).update('handoff recovery confirmation code').digest();
}

/**
 * The request's one confirmation code: derived from the request id under the secret key, so a retried send
 * sends the same code and the code is stored nowhere, not even in the workflow's history.
 */
export function recoveryCode(keys: SecretKeys, requestId: string): string {
  const digest = createHmac('sha256', codeKey(keys)).update(`code:${requestId}`).digest();
  return (digest.readBigUInt64BE(0) % 10n ** BigInt(CODE_DIGITS)).toString().padStart(CODE_DIGITS, '0');
}

/** What the workflow holds and compares: the HMAC of a code for this request. */
export function recoveryCodeHmac(keys: SecretKeys, requestId: string, code: string): string {
  return createHmac('sha256', codeKey(keys)).update(`check:${requestId}:${code.trim()}`).digest('hex');
}

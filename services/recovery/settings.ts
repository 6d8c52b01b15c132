import type { SecretKeys } from '../../lib/secret-box';

/** The windows and delays of guardian recovery (RECOVERY_* in the configuration, docs/operations.md). */
export interface RecoverySettings {
  /** How long an invited guardian has to accept: 7 days. */
  guardianAcceptWindowSeconds: number;
  /** How long after an acceptance or a removal the guardian set changes: 24 hours. */
  guardianChangeDelaySeconds: number;
  /** How long guardians have to reach the threshold before the request expires: 7 days. */
  approvalWindowSeconds: number;
  /** The time lock after the threshold, during which the owner may cancel: 48 hours. */
  timeLockSeconds: number;
  /** The confirmation code's lifetime: 15 minutes. */
  codeTtlSeconds: number;
  /** How far an approval's timestamp may be from the service's clock before it is stale: 5 minutes. */
  approvalMaxSkewSeconds: number;
  /** The code's HMAC key derives from SECRETS_ENCRYPTION_KEY. */
  secretKeys: SecretKeys;
  publicBaseUrl: string;
}

/** At most five attempts at a code: the rule, not a setting. */
export const MAX_CODE_ATTEMPTS = 5;

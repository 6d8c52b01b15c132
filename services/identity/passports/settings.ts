import type { SecretKeys } from '../../../lib/secret-box';

/** What the Passport services read from the configuration. */
export interface PassportSettings {
  /** PUBLIC_BASE_URL: its host (and path) make every Passport's did:web. */
  publicBaseUrl: string;
  /** Seal the private keys of agent and organization Passports. */
  secretKeys: SecretKeys;
  /** How long a device ceremony challenge may be answered. */
  challengeTtlSeconds: number;
  /** Lifetime of the session token a device sign-in issues. */
  sessionTtlSeconds: number;
  /**
   * How long a rotated-out server key still verifies: the longest a signature by a Passport key may live,
   * so everything the old key signed verifies until it expires.
   */
  keyVerifyWindowSeconds: number;
}

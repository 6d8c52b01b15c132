/** How strongly a sign-in shows that the person is present, by the credential it used. */
export const VERIFICATION_TIERS = {
  /** A device key held in the device's keystore: possession, without proof that the person is present. */
  device_key: 1,
  /** A passkey: the WebAuthn ceremony requires user verification (biometric or PIN) on the authenticator. */
  passkey: 2,
} as const;

/** The verification tier a sign-in reaches: the strength of the credential the session was signed in with. */
export function verificationTierOf(credentialType: keyof typeof VERIFICATION_TIERS): number {
  return VERIFICATION_TIERS[credentialType];
}

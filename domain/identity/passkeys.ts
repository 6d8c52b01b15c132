/**
 * Passkey decisions. The signature counter: an authenticator that counts reports a higher number at every
 * use, so a number that does not grow means two authenticators hold the same key (a clone); one that does
 * not count reports 0 every time, which proves nothing either way.
 */
export type CounterDecision =
  { ok: true; counter: number } | { ok: false; code: 'counter_regression'; stored: number; presented: number };

export function decideSignatureCounter(stored: number, presented: number): CounterDecision {
  if (stored === 0 && presented === 0) return { ok: true, counter: 0 };
  if (presented > stored) return { ok: true, counter: presented };
  return { ok: false, code: 'counter_regression', stored, presented };
}

/**
 * The ceremonies a challenge can be issued for; a challenge answers only the ceremony it was issued for.
 * decision: the nonce a signed-in person's decision signature carries (services/identity/passkeys/decision-signatures.ts).
 * recovery: a passkey registered as a guardian recovery's new credential (services/recovery/new-credential.ts).
 */
export const WEBAUTHN_CEREMONIES = [
  'enrollment',
  'addition',
  'rotation',
  'authentication',
  'decision',
  'recovery',
] as const;
export type WebAuthnCeremony = (typeof WEBAUTHN_CEREMONIES)[number];

/** Why a passkey stopped being active; every session signed in with it ends with it. */
export const PASSKEY_REVOKE_REASONS = ['rotated', 'counter_regression'] as const;
export type PasskeyRevokeReason = (typeof PASSKEY_REVOKE_REASONS)[number];

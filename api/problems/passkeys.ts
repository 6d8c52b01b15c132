import type { ProblemTable } from './table';

/** Passkeys (WebAuthn) and sessions. */
export const PASSKEY_PROBLEMS = {
  webauthn_challenge_invalid: {
    status: 400,
    title: 'The WebAuthn challenge is unknown, already used or expired',
    remediation: ['Start the ceremony again: ask for new options and answer them once, before their expires_at'],
  },
  webauthn_response_invalid: {
    status: 400,
    title: 'The authenticator’s response did not verify',
    remediation: [
      'Answer the options with a passkey on an origin of this deployment, with user verification (PIN or biometrics)',
      'Start the ceremony again with new options',
    ],
  },
  passkey_sign_in_failed: {
    status: 401,
    title: 'Signing in with the passkey failed',
    remediation: [
      'Sign in with another passkey of the Passport',
      'A revoked passkey (rotated away, or cloned) cannot sign in again: add or enroll a new one',
    ],
  },
  person_already_enrolled: {
    status: 409,
    title: 'The organization already has an active person with this userId',
    remediation: ['Have the person add a passkey to their Passport while signed in, or enroll under another userId'],
  },
  passkey_already_registered: {
    status: 409,
    title: 'This passkey is already registered',
    remediation: ['Sign in with it instead, or register another authenticator'],
  },
  passkey_not_rotatable: {
    status: 409,
    title: 'The passkey to rotate is not an active passkey of this Passport',
    remediation: ['Name an active passkey of the Passport in credentialId, or sign in with the passkey to rotate'],
  },
} as const satisfies ProblemTable;

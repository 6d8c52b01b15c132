import type { ProblemTable } from './table';

/** Passkeys (WebAuthn) and sessions. */
export const PASSKEY_PROBLEMS = {
  decision_signature_invalid: {
    status: 403,
    title: 'The decision’s passkey signature does not verify',
    remediation: [
      'Sign exactly the decision you send (item, decision, modified parameters, comment) with an active passkey of your own, on this service’s origin',
      'Ask for a new nonce (POST /v1/inbox/decision-nonces) and sign again',
    ],
  },
  decision_nonce_invalid: {
    status: 409,
    title: 'The decision’s nonce is unknown, already used or expired',
    remediation: ['Ask for a new nonce (POST /v1/inbox/decision-nonces), sign the decision over it and send it once'],
  },
  inbox_item_not_found: {
    status: 404,
    title: 'The item is not in your inbox',
    remediation: ['Read your inbox again (GET /v1/inbox/items): it may have been decided, moved on or expired'],
  },
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
  enrollment_reviewer_not_found: {
    status: 422,
    title: 'The enrollment names no reviewer of your organization',
    remediation: [
      'Name in reviewer_did the DID of a reviewer of your organization (GET /v1/orch/reviewers), or register it first (PUT /v1/orch/reviewers/{did})',
      'Omit reviewer_did to enroll the person without linking a reviewer',
    ],
  },
  reviewer_already_linked: {
    status: 409,
    title: 'The reviewer is linked to a Passport already',
    remediation: [
      'Enroll the person without reviewer_did, or link another reviewer',
      'To hand the reviewer to another person, change its passport_id with PUT /v1/orch/reviewers/{did}',
    ],
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

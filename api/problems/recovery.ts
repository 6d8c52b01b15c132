import type { ProblemTable } from './table';

/** Guardian recovery of a person's Passport. */
export const RECOVERY_PROBLEMS = {
  recovery_session_required: {
    status: 403,
    title: 'Guardians and owners act only in their own signed-in session',
    remediation: [
      'Sign in with your own passkey or device key and call with that session token: no delegation token, access token or DID in a body stands in for you',
    ],
  },
  recovery_not_owner: {
    status: 403,
    title: 'Only the Passport’s owner may do this',
    remediation: ['Have the owner sign in and send it'],
  },
  recovery_not_the_guardian: {
    status: 403,
    title: 'The invitation is addressed to another person',
    remediation: ['Have the invited person sign in and accept it'],
  },
  recovery_guardian_unknown: {
    status: 404,
    title: 'The DID names no person of the organization',
    remediation: ['Name the DID of a person enrolled in your organization'],
  },
  recovery_guardian_not_found: {
    status: 404,
    title: 'No such guardian of this Passport',
    remediation: ['List the guardians with GET /v1/passports/{passport_id}/recovery/guardians'],
  },
  recovery_guardian_is_owner: {
    status: 409,
    title: 'The owner cannot be their own guardian',
    remediation: ['Name another person'],
  },
  recovery_guardian_exists: {
    status: 409,
    title: 'This person guards the Passport already, or is invited',
    remediation: ['Nothing to do; or remove them first to invite them again'],
  },
  recovery_guardians_full: {
    status: 409,
    title: 'The Passport has five guardians (invitations included)',
    remediation: ['Remove a guardian first (DELETE …/recovery/guardians/{guardian_id})'],
  },
  recovery_guardian_already_accepted: {
    status: 409,
    title: 'The invitation is accepted already',
    remediation: ['Nothing to do'],
  },
  recovery_guardian_removed: {
    status: 409,
    title: 'The guardian was removed',
    remediation: ['Ask the owner to invite you again'],
  },
  recovery_invitation_expired: {
    status: 409,
    title: 'The invitation’s acceptance window has passed',
    remediation: ['Ask the owner to invite you again'],
  },
  recovery_request_open: {
    status: 409,
    title: 'A recovery request of this Passport is open',
    remediation: [
      'Guardians cannot change, and no second request opens, while one is open: let it end, or have the owner cancel it',
    ],
  },
  recovery_request_not_found: {
    status: 404,
    title: 'No such recovery request of this Passport',
    remediation: ['Use the id the request was created with'],
  },
  recovery_person_only: {
    status: 409,
    title: 'Only a person’s Passport is recovered by guardians',
    remediation: [
      'Rotate an agent’s or the organization’s keys instead (POST /v1/passports/{passport_id}/keys/rotate)',
    ],
  },
  recovery_guardians_insufficient: {
    status: 409,
    title: 'The Passport has too few guardians in effect',
    remediation: ['The owner needs 3 to 5 guardians who accepted more than the change delay ago'],
  },
  invalid_public_key: {
    status: 400,
    title: 'The new credential’s public key is not an Ed25519 key',
    remediation: ['Send an Ed25519 public JWK (kty OKP, crv Ed25519, x) or its did:key'],
  },
  mail_unavailable: {
    status: 503,
    title: 'This deployment sends no mail',
    remediation: ['The operator configures SMTP_URL'],
  },
  sms_unavailable: {
    status: 503,
    title: 'No text message could be sent',
    remediation: [
      'The operator configures SMS_API_URL, SMS_ACCOUNT_ID, SMS_AUTH_TOKEN and SMS_FROM',
      'The contact is an E.164 number (+ and 7 to 15 digits)',
    ],
  },
  recovery_not_guardian: {
    status: 403,
    title: 'The signed-in person is not a guardian of this request',
    remediation: [
      'Only the guardians the request snapshot names approve it; an approval of another request is refused',
    ],
  },
  recovery_approval_replayed: {
    status: 409,
    title: 'This guardian approved this request already',
    remediation: ['Nothing to do: each guardian counts once'],
  },
  recovery_approval_other_request: {
    status: 409,
    title: 'The approval is bound to another request',
    remediation: ['Read the request (GET …/recovery/requests/{request_id}) and send its approval_nonce'],
  },
  recovery_credential_mismatch: {
    status: 409,
    title: 'The approval names another new credential',
    remediation: ['Approve only the new_credential.hash the request shows, after checking it with the owner'],
  },
  recovery_approval_stale: {
    status: 409,
    title: 'The approval’s timestamp is too far from now',
    remediation: ['Approve again, with the current time'],
  },
  recovery_not_collecting: {
    status: 409,
    title: 'The request no longer collects approvals',
    remediation: ['Read the request: it is time-locked, awaiting its code, or ended'],
  },
  recovery_not_cancellable: {
    status: 409,
    title: 'The request can no longer be cancelled',
    remediation: [
      'Only a request collecting approvals or time-locked is cancelled; a completed one is undone by recovering again',
    ],
  },
  recovery_not_awaiting_confirmation: {
    status: 409,
    title: 'No confirmation code is awaited',
    remediation: ['Wait for the time lock to pass and the code to arrive; an expired code ends the request'],
  },
  recovery_code_invalid: {
    status: 400,
    title: 'The confirmation code is wrong',
    remediation: ['Check the code in the mail; attempts_left says how many tries remain'],
  },
  recovery_code_attempts_exhausted: {
    status: 409,
    title: 'The last attempt at the code was wrong: the request has ended',
    remediation: ['Ask for recovery again'],
  },
} as const satisfies ProblemTable;

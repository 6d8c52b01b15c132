import type { ProblemTable } from './table';

/** Passports, their keys and the device ceremony. */
export const IDENTITY_PROBLEMS = {
  passport_not_found: {
    status: 404,
    title: 'No such Passport',
    remediation: ['Check the passportId returned when the Passport was created'],
  },
  passport_key_not_found: {
    status: 404,
    title: 'The Passport has no such key',
    remediation: [
      'List the Passport’s keys with GET /v1/passports/{passport_id}; a kid is the key’s RFC 7638 thumbprint',
    ],
  },
  passport_key_already_revoked: {
    status: 409,
    title: 'The key is revoked already',
    remediation: ['Nothing to do: a revoked key stays revoked; rotate to make a new one'],
  },
  passport_keys_on_device: {
    status: 409,
    title: 'This Passport’s keys live on its person’s devices',
    remediation: [
      'Register a new device key with the device ceremony (POST /v1/passports/device-challenges, then POST /v1/passports/devices)',
      'Revoke a lost device’s key with POST /v1/passports/{passport_id}/keys/{kid}/revoke',
    ],
  },
  organization_passport_exists: {
    status: 409,
    title: 'The organization has its Passport already',
    remediation: ['Use the organization Passport named in passport_id; rotate its keys rather than creating another'],
  },
  device_key_exists: {
    status: 409,
    title: 'The device key is registered already',
    remediation: [
      'Make a new key pair on the device for a new Passport, or sign in with this one (POST /v1/passports/{passport_id}/sessions)',
    ],
  },
  device_proof_invalid: {
    status: 401,
    title: 'The device proof does not verify',
    remediation: [
      'Sign a JWT (typ device-proof+jwt, alg EdDSA) with the device key over {challenge, deviceId}; for sign-in put the key’s kid in the header',
    ],
  },
  challenge_unknown: {
    status: 401,
    title: 'The proof answers no challenge this service issued for it',
    remediation: [
      'Ask for a challenge (registration: POST /v1/passports/device-challenges; sign-in: POST /v1/passports/{passport_id}/sign-in-challenges) and sign that one',
    ],
  },
  challenge_used: {
    status: 401,
    title: 'The challenge was answered already',
    remediation: ['Ask for a new challenge: each is single-use'],
  },
  challenge_expired: {
    status: 401,
    title: 'The challenge has expired',
    remediation: ['Ask for a new challenge and answer it within its expiresAt'],
  },
  device_key_revoked: {
    status: 401,
    title: 'The device key was revoked',
    remediation: [
      'Register the device again with a new key (POST /v1/passports/devices with a new registration challenge)',
    ],
  },
  // Delegation tokens and capabilities.
  passport_required: {
    status: 403,
    title: 'The operation needs a Passport’s credential',
    remediation: [
      'Call with a delegation token (POST /v1/delegation-tokens/exchange) or a session token of the Passport that delegates',
    ],
  },
  delegation_widening: {
    status: 403,
    title: 'A delegation can only narrow what its parent holds',
    remediation: [
      'Ask only for capabilities the parent holds, an expiry no later than its, its environment, and a risk_level no higher than its (widening[] lists each excess)',
    ],
  },
  verification_tier_too_low: {
    status: 403,
    title: 'The sign-in is below the required verification tier',
    remediation: [
      'Sign in with a stronger credential (a passkey reaches tier 2, a device key tier 1), then exchange again',
    ],
  },
  identity_tier_too_low: {
    status: 403,
    title: 'The Passport is below the required identity tier',
    remediation: [
      'Raise the Passport’s identity tier (verify its organization e-mail link for tier 1; organization attestation for tier 2), or ask for a lower tier',
    ],
  },
  agent_delegation_refused: {
    status: 403,
    title: 'A token held by an agent cannot delegate further',
    remediation: ['Delegate from the person’s own session or delegation token'],
  },
  delegation_outside_chain: {
    status: 403,
    title: 'The token belongs to a delegation outside the caller’s chain',
    remediation: [
      'Rotate or revoke only your own delegation, a delegation made from it, or their tokens',
      'Or act with the person’s session, or with the delegation token the target was delegated from',
    ],
  },
  revoked_by_mismatch: {
    status: 403,
    title: 'revoked_by must be the caller’s own DID',
    remediation: ['Omit revoked_by, or send the DID of the Passport the token belongs to'],
  },
  delegation_not_found: {
    status: 404,
    title: 'No such delegation',
    remediation: ['Check the delegation_id returned by the exchange or by POST /v1/delegation-tokens'],
  },
  delegation_token_not_found: {
    status: 404,
    title: 'No such delegation token',
    remediation: ['List tokens with GET /v1/delegation-tokens'],
  },
  delegation_token_not_active: {
    status: 409,
    title: 'The delegation token is no longer active',
    remediation: [
      'Read its status with GET /v1/delegation-tokens/{token_id}; a rotated or revoked token cannot be rotated or revoked again',
    ],
  },
  // Organizations.
  organization_not_found: {
    status: 404,
    title: 'No such organization',
    remediation: ['List the organizations you can see with GET /v1/organizations'],
  },
  organization_exists: {
    status: 409,
    title: 'An organization already has this org_did or slug',
    remediation: ['Choose another org_did or slug, or use the existing organization'],
  },
} as const satisfies ProblemTable;

import { createHash, randomBytes } from 'node:crypto';
import { decodeProtectedHeader, errors as joseErrors, importJWK, jwtVerify, type JWTPayload } from 'jose';
import type { Knex } from 'knex';
import {
  consumeChallenge,
  findChallenge,
  findPassport,
  findPassportKey,
  insertChallenge,
  purgeExpiredChallenges,
  type ChallengePurpose,
  type ChallengeRow,
} from '../../../db/passports';
import { ed25519JwkOfDidKey, parseEd25519PublicJwk, type Ed25519PublicJwk } from '../../../domain/identity/did';
import type { KeyRing } from '../issuance/key-ring';
import type { Principal } from '../scopes';
import type { TokenSettings } from '../authentication/actor';
import { issueSessionToken, type Session } from '../issuance/session-tokens';
import { capabilityUris } from './passports';
import type { PassportSettings } from './settings';

/** The typ of a device's proof: a JWT signed by the device key, so no other token passes for one. */
export const DEVICE_PROOF_TYPE = 'device-proof+jwt';

export interface DeviceCeremonyDeps {
  db: Knex;
  keyRing: KeyRing;
  token: TokenSettings;
  settings: PassportSettings;
}

export type CeremonyRefusal =
  | {
      ok: false;
      code:
        'device_proof_invalid' | 'challenge_unknown' | 'challenge_used' | 'challenge_expired' | 'device_key_revoked';
      detail: string;
    }
  | { ok: false; code: 'invalid'; errors: Array<{ field: string; code: string; message: string }> };

/** An expired challenge is kept an hour, so a late answer still hears challenge_expired rather than challenge_unknown. */
const EXPIRED_CHALLENGE_KEEP_MS = 3_600_000;
const PURGE_BATCH = 20;

export const hashOf = (challenge: string) => createHash('sha256').update(challenge).digest('hex');

async function newChallenge(
  db: Knex,
  settings: PassportSettings,
  row: {
    purpose: ChallengePurpose;
    organization_id: string;
    passport_id: string | null;
    registration: ChallengeRow['registration'];
    requested_by: string | null;
  },
): Promise<{ challenge: string; expires_at: Date }> {
  const challenge = randomBytes(32).toString('base64url');
  const now = new Date();
  const expires_at = new Date(now.getTime() + settings.challengeTtlSeconds * 1000);
  await insertChallenge(db, { ...row, challenge_hash: hashOf(challenge), created_at: now, expires_at });
  // Each new challenge clears a few long-expired ones, so the table stays as small as the traffic of one TTL.
  await purgeExpiredChallenges(db, new Date(now.getTime() - EXPIRED_CHALLENGE_KEEP_MS), PURGE_BATCH);
  return { challenge, expires_at };
}

/**
 * An invitation to mint a person's Passport in the caller's organization: a random, single-use challenge
 * the person's device signs with a key it made and keeps. Whoever invites names the person; the key is
 * never seen here, only its public half.
 */
export async function createRegistrationChallenge(
  deps: DeviceCeremonyDeps,
  principal: Principal,
  person: { name: string; metadata: Record<string, unknown>; capabilities: string[] },
): Promise<{ challenge: string; expires_at: Date }> {
  return newChallenge(deps.db, deps.settings, {
    purpose: 'registration',
    organization_id: principal.organization_id,
    passport_id: null,
    registration: { ...person, capabilities: capabilityUris(person.capabilities) },
    requested_by: principal.id,
  });
}

export type SignInChallengeOutcome =
  | { ok: true; challenge: string; expires_at: Date; organization_id: string }
  | { ok: false; code: 'passport_not_found' };

/** A fresh challenge for a person's device to sign in with; only a person's Passport has device keys. */
export async function createSignInChallenge(
  deps: DeviceCeremonyDeps,
  passportId: string,
): Promise<SignInChallengeOutcome> {
  const passport = await findPassport(deps.db, passportId);
  if (passport?.type !== 'individual') return { ok: false, code: 'passport_not_found' };
  const created = await newChallenge(deps.db, deps.settings, {
    purpose: 'sign_in',
    organization_id: passport.organization_id,
    passport_id: passportId,
    registration: null,
    requested_by: null,
  });
  return { ok: true, ...created, organization_id: passport.organization_id };
}

/** The device key of a registration: a public JWK, or the did:key that names one. */
export function devicePublicKey(value: unknown): { ok: true; jwk: Ed25519PublicJwk } | { ok: false; reason: string } {
  if (typeof value === 'string') {
    const jwk = ed25519JwkOfDidKey(value);
    return jwk
      ? { ok: true, jwk }
      : { ok: false, reason: 'must be an Ed25519 did:key (did:key:z6Mk…) or a public JWK' };
  }
  return parseEd25519PublicJwk(value);
}

/** Verifies a proof with the device key: EdDSA only, typ device-proof+jwt, and a string challenge in it. */
export async function verifyProof(
  proof: string,
  jwk: Ed25519PublicJwk,
): Promise<{ ok: true; payload: JWTPayload & { challenge: string } } | { ok: false; detail: string }> {
  try {
    const key = await importJWK({ ...jwk }, 'EdDSA');
    const { payload } = await jwtVerify(proof, key, { algorithms: ['EdDSA'], typ: DEVICE_PROOF_TYPE });
    if (typeof payload.challenge !== 'string') return { ok: false, detail: 'The proof names no challenge' };
    return { ok: true, payload: payload as JWTPayload & { challenge: string } };
  } catch (error) {
    if (error instanceof joseErrors.JWSSignatureVerificationFailed)
      return { ok: false, detail: 'The proof’s signature does not verify with the device key' };
    if (error instanceof joseErrors.JOSEError || error instanceof TypeError)
      return { ok: false, detail: `The proof is not a valid ${DEVICE_PROOF_TYPE} (${error.message})` };
    throw error;
  }
}

/** Why a challenge cannot be answered now, or undefined when it can. */
export function challengeRefusal(
  challenge: ChallengeRow | undefined,
  expected: { purpose: ChallengePurpose; passport_id?: string },
  now: Date,
): CeremonyRefusal | undefined {
  if (
    challenge?.purpose !== expected.purpose ||
    (expected.passport_id !== undefined && challenge.passport_id !== expected.passport_id)
  ) {
    return {
      ok: false,
      code: 'challenge_unknown',
      detail: `The proof signs no ${expected.purpose === 'registration' ? 'registration' : 'sign-in'} challenge this service issued${expected.passport_id ? ' for this Passport' : ''}`,
    };
  }
  if (challenge.consumed_at)
    return {
      ok: false,
      code: 'challenge_used',
      detail: 'The challenge was answered already; each is single-use: ask for a new one',
    };
  if (challenge.expires_at.getTime() <= now.getTime())
    return {
      ok: false,
      code: 'challenge_expired',
      detail: `The challenge expired at ${challenge.expires_at.toISOString()}: ask for a new one`,
    };
  return undefined;
}

/** After a lost race to consume it: the challenge as it is now says why. */
export async function consumedRefusal(
  db: Knex,
  challengeHash: string,
  expected: { purpose: ChallengePurpose; passport_id?: string },
): Promise<CeremonyRefusal> {
  return (
    challengeRefusal(await findChallenge(db, challengeHash), expected, new Date()) ?? {
      ok: false,
      code: 'challenge_used',
      detail: 'The challenge was answered already',
    }
  );
}

export type SignInOutcome =
  { ok: true; token: string; session: Session } | CeremonyRefusal | { ok: false; code: 'passport_not_found' };

/**
 * Signs a person in with a device key: a JWT by one of the Passport's device keys (kid in its header) over
 * a fresh sign-in challenge. The session it yields is bound to that key and ends when the key is revoked.
 */
export async function signInWithDevice(
  deps: DeviceCeremonyDeps,
  passportId: string,
  proof: string,
): Promise<SignInOutcome> {
  const passport = await findPassport(deps.db, passportId);
  if (passport?.type !== 'individual') return { ok: false, code: 'passport_not_found' };
  let kid: string | undefined;
  try {
    kid = decodeProtectedHeader(proof).kid;
  } catch {
    return { ok: false, code: 'device_proof_invalid', detail: `The proof is not a compact JWS (${DEVICE_PROOF_TYPE})` };
  }
  if (!kid)
    return {
      ok: false,
      code: 'device_proof_invalid',
      detail: 'The proof’s header names no kid: give the thumbprint of the device key that signed it',
    };
  const key = await findPassportKey(deps.db, kid);
  if (key?.passport_id !== passportId || key.source !== 'device')
    return { ok: false, code: 'device_proof_invalid', detail: `${kid} is not a device key of this Passport` };
  const verified = await verifyProof(proof, key.public_jwk);
  if (!verified.ok) return { ok: false, code: 'device_proof_invalid', detail: verified.detail };
  if (key.status !== 'active')
    return {
      ok: false,
      code: 'device_key_revoked',
      detail: `The device key ${kid} was revoked${key.revoke_reason ? ` (${key.revoke_reason})` : ''}; register this device again`,
    };

  const challengeHash = hashOf(verified.payload.challenge);
  const now = new Date();
  const expected = { purpose: 'sign_in' as const, passport_id: passportId };
  const refusal = challengeRefusal(await findChallenge(deps.db, challengeHash), expected, now);
  if (refusal) return refusal;
  if (!(await consumeChallenge(deps.db, challengeHash, now))) return consumedRefusal(deps.db, challengeHash, expected);
  const { token, session } = await issueSessionToken(deps.keyRing, deps.token, {
    passport_id: passportId,
    did: passport.did,
    organization_id: passport.organization_id,
    credential: { type: 'device_key', id: kid },
    ttlSeconds: deps.settings.sessionTtlSeconds,
    now,
  });
  return { ok: true, token, session };
}

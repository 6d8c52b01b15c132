import { verifyRegistrationResponse, type RegistrationResponseJSON } from '@simplewebauthn/server';
import type { Knex } from 'knex';
import {
  consumeChallenge,
  insertChallenge,
  purgeStaleChallenges,
  type ChallengeRow,
  type NewChallenge,
  type NewPasskey,
} from '../../../db/webauthn';
import type { WebAuthnCeremony } from '../../../domain/identity/passkeys';
import type { Logger } from '../../../lib/logger';
import type { KeyRing } from '../issuance/key-ring';
import type { TokenSettings } from '../authentication/actor';
import type { RevocationRegistry } from '../delegations/revocations';
import { issueSessionToken, type Session } from '../issuance/session-tokens';
import type { WebAuthnSettings } from './settings';

export interface WebAuthnDeps {
  db: Knex;
  keyRing: KeyRing;
  logger: Logger;
  /** Where a revoked passkey's delegations are refused at once on this instance. */
  revocations: RevocationRegistry;
  settings: { token: TokenSettings; webauthn: WebAuthnSettings };
}

/** What a ceremony that did not succeed tells the caller; detail is safe to show. */
export type CeremonyFailure =
  | { ok: false; code: 'challenge_unknown' | 'challenge_expired' | 'malformed_response'; detail: string }
  | { ok: false; code: 'verification_failed'; detail: string };

export interface SignedIn {
  token: string;
  session: Session;
}

/** Stores a new challenge for a ceremony, first dropping the ones nobody answered long ago. */
export async function issueChallenge(
  deps: { db: Knex; settings: { webauthn: WebAuthnSettings } },
  challenge: Omit<NewChallenge, 'ttlSeconds'>,
): Promise<ChallengeRow> {
  await purgeStaleChallenges(deps.db, deps.settings.webauthn.challengeTtlSeconds);
  return insertChallenge(deps.db, { ...challenge, ttlSeconds: deps.settings.webauthn.challengeTtlSeconds });
}

/** The challenge a browser signed, read from its clientDataJSON (base64url of a JSON object). */
export function challengeSigned(clientDataJSON: string): string | undefined {
  try {
    const clientData: unknown = JSON.parse(Buffer.from(clientDataJSON, 'base64url').toString('utf8'));
    if (typeof clientData !== 'object' || clientData === null) return undefined;
    const { challenge } = clientData as { challenge?: unknown };
    return typeof challenge === 'string' && challenge.length > 0 ? challenge : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Takes the challenge the response signed: it answers once, only the ceremony it was issued for, and only
 * before it expires. A replay finds nothing; a late answer finds it expired (and it is gone all the same).
 */
export async function takeChallenge(
  deps: Pick<WebAuthnDeps, 'db'>,
  clientDataJSON: string,
  where: { ceremony: WebAuthnCeremony; passport_id?: string; challenge?: string },
): Promise<{ ok: true; challenge: ChallengeRow } | CeremonyFailure> {
  const signed = challengeSigned(clientDataJSON);
  if (!signed)
    return {
      ok: false,
      code: 'malformed_response',
      detail: 'response.clientDataJSON is not base64url of a JSON object with a challenge',
    };
  if (where.challenge !== undefined && where.challenge !== signed) {
    return {
      ok: false,
      code: 'verification_failed',
      detail: 'The response signed another challenge than the one named in the body',
    };
  }
  const row = await consumeChallenge(deps.db, {
    challenge: signed,
    ceremony: where.ceremony,
    ...(where.passport_id ? { passport_id: where.passport_id } : {}),
  });
  if (!row)
    return {
      ok: false,
      code: 'challenge_unknown',
      detail: `The challenge was not issued for this ${where.ceremony}, or has already been used`,
    };
  if (!row.live)
    return {
      ok: false,
      code: 'challenge_expired',
      detail: `The challenge expired at ${row.expires_at.toISOString()}; start the ${where.ceremony} again`,
    };
  const { live: _live, ...challenge } = row;
  return { ok: true, challenge };
}

const TRANSPORTS: ReadonlySet<string> = new Set(['ble', 'cable', 'hybrid', 'internal', 'nfc', 'smart-card', 'usb']);

/** Transports the browser reported that this server knows; others (from a newer browser) are dropped, not refused. */
export function knownTransports(reported: readonly string[] | undefined): string[] {
  return (reported ?? []).filter((transport) => TRANSPORTS.has(transport));
}

/**
 * Verifies a new passkey's attestation against the challenge it was issued: origin, RP id, user presence
 * and user verification (people sign in with something they are or know, not only something they hold).
 */
export async function verifyNewPasskey(
  settings: WebAuthnSettings,
  response: RegistrationResponseJSON,
  expectedChallenge: string,
): Promise<{ ok: true; passkey: Omit<NewPasskey, 'passport_id'> } | CeremonyFailure> {
  try {
    const verification = await verifyRegistrationResponse({
      response,
      expectedChallenge,
      expectedOrigin: settings.origins,
      expectedRPID: settings.rpId,
      requireUserPresence: true,
      requireUserVerification: true,
    });
    if (!verification.verified)
      return { ok: false, code: 'verification_failed', detail: 'The attestation did not verify' };
    const { credential } = verification.registrationInfo;
    return {
      ok: true,
      passkey: {
        credential_id: credential.id,
        public_key: Buffer.from(credential.publicKey).toString('base64url'),
        counter: credential.counter,
        transports: knownTransports(response.response.transports),
      },
    };
  } catch (error) {
    // The library reports every reason a response does not verify as an Error with a message meant for the caller.
    return { ok: false, code: 'verification_failed', detail: (error as Error).message };
  }
}

/** A short-lived session bound to the passkey that was just used: it ends when the passkey is revoked or rotated away. */
export function signInWithPasskey(
  deps: WebAuthnDeps,
  passport: { passport_id: string; did: string; organization_id: string },
  credentialId: string,
): Promise<SignedIn> {
  return issueSessionToken(deps.keyRing, deps.settings.token, {
    passport_id: passport.passport_id,
    did: passport.did,
    organization_id: passport.organization_id,
    credential: { type: 'passkey', id: credentialId },
    ttlSeconds: deps.settings.webauthn.sessionTtlSeconds,
  });
}

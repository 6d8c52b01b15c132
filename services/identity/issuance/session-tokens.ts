import { randomUUID } from 'node:crypto';
import { errors as joseErrors, jwtVerify, SignJWT, type JWTPayload } from 'jose';
import type { Knex } from 'knex';
import { sessionCredentialIsActive } from '../../../db/sessions';
import { SIGNING_ALGORITHM, type KeyRing } from './key-ring';
import type { Actor, TokenSettings } from '../authentication/actor';
import { hasExpired, protectedHeaderOf, type VerifiedTokenCache } from '../../../lib/verified-tokens';

/** A session token: what a WebAuthn or device-key sign-in yields, and the one thing the delegation exchange accepts. */
export const SESSION_TOKEN_TYPE = 'session+jwt';

export interface Session {
  session_id: string;
  passport_id: string;
  did: string;
  organization_id: string;
  /** The passkey or device key that signed in; the session is bound to it and dies with it. */
  credential: { type: Extract<Actor['credential']['type'], 'passkey' | 'device_key'>; id: string };
  expires_at: Date;
}

/** Short-lived (minutes): signed with the deployment key, typ session+jwt so no other token passes for one. */
export async function issueSessionToken(
  keyRing: KeyRing,
  settings: TokenSettings,
  claims: Omit<Session, 'session_id' | 'expires_at'> & { ttlSeconds: number; now?: Date },
): Promise<{ token: string; session: Session }> {
  const { kid, privateKey } = await keyRing.signingKey();
  const issuedAt = Math.floor((claims.now ?? new Date()).getTime() / 1000);
  const session: Session = {
    session_id: `ses_${randomUUID()}`,
    passport_id: claims.passport_id,
    did: claims.did,
    organization_id: claims.organization_id,
    credential: claims.credential,
    expires_at: new Date((issuedAt + claims.ttlSeconds) * 1000),
  };
  const token = await new SignJWT({ pid: session.passport_id, org: session.organization_id, cred: session.credential })
    .setProtectedHeader({ alg: SIGNING_ALGORITHM, typ: SESSION_TOKEN_TYPE, kid })
    .setIssuer(settings.issuer)
    .setAudience(settings.audience)
    .setSubject(session.did)
    .setIssuedAt(issuedAt)
    .setExpirationTime(issuedAt + claims.ttlSeconds)
    .setJti(session.session_id)
    .sign(privateKey);
  return { token, session };
}

export type SessionVerification = { ok: true; session: Session } | { ok: false; reason: string };

/**
 * Signature, type, issuer, audience and expiry (a token verified before is taken from `verified` until it
 * expires, while its key is still published); whether the credential is still live is the caller's check.
 */
export async function verifySessionToken(
  deps: { keyRing: KeyRing; settings: TokenSettings; verified?: VerifiedTokenCache },
  token: string,
): Promise<SessionVerification> {
  const header = protectedHeaderOf(deps.verified, token);
  if (!header) return { ok: false, reason: 'The session token is malformed' };
  const { kid } = header;
  // Asked even of a cached token, from the key ring's memory: a key withdrawn early (compromised) stops its sessions too.
  const key = kid ? await deps.keyRing.verificationKey(kid) : undefined;
  if (!key) return { ok: false, reason: 'The session token was not signed by a key of this deployment' };
  const cached = deps.verified?.get(token);
  if (cached) return hasExpired(cached) ? { ok: false, reason: 'The session token has expired' } : sessionOf(cached);
  let payload: JWTPayload;
  try {
    ({ payload } = await jwtVerify(token, key, {
      algorithms: [SIGNING_ALGORITHM],
      issuer: deps.settings.issuer,
      audience: deps.settings.audience,
      typ: SESSION_TOKEN_TYPE,
      requiredClaims: ['exp', 'sub', 'jti', 'pid', 'org', 'cred'],
    }));
  } catch (error) {
    if (error instanceof joseErrors.JWTExpired) return { ok: false, reason: 'The session token has expired' };
    if (error instanceof joseErrors.JOSEError)
      return { ok: false, reason: `The session token is not valid (${error.code})` };
    throw error;
  }
  const verified = sessionOf(payload);
  if (verified.ok) deps.verified?.set(token, payload, header);
  return verified;
}

/** The session a verified token's claims describe, or why they describe none. */
function sessionOf(payload: JWTPayload): SessionVerification {
  const cred = payload.cred as { type?: unknown; id?: unknown };
  if ((cred.type !== 'passkey' && cred.type !== 'device_key') || typeof cred.id !== 'string')
    return { ok: false, reason: 'The session token names no credential' };
  return {
    ok: true,
    session: {
      session_id: payload.jti!,
      passport_id: String(payload.pid),
      did: payload.sub!,
      organization_id: String(payload.org),
      credential: { type: cred.type, id: cred.id },
      expires_at: new Date(payload.exp! * 1000),
    },
  };
}

/** Whether the passkey or device key a session was signed in with is still active for its Passport. */
export type SessionCredentialCheck = (credential: SessionCredential) => Promise<boolean>;
export type SessionCredential = Session['credential'] & { passport_id: string };

/**
 * A session that is valid now: its token verifies and the credential it is bound to has not been revoked or
 * rotated away (read by `isActive`: the database's row unless the caller holds it while every change is heard of).
 */
export async function authenticateSession(
  deps: { db: Knex; keyRing: KeyRing; settings: TokenSettings; verified?: VerifiedTokenCache },
  token: string,
  isActive: SessionCredentialCheck = (credential) => sessionCredentialIsActive(deps.db, credential),
): Promise<SessionVerification> {
  const verified = await verifySessionToken(deps, token);
  if (!verified.ok) return verified;
  const { credential, passport_id } = verified.session;
  if (!(await isActive({ ...credential, passport_id }))) {
    return {
      ok: false,
      reason: `The ${credential.type === 'passkey' ? 'passkey' : 'device key'} this session was signed in with is no longer active`,
    };
  }
  return verified;
}

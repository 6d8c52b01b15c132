import { decodeProtectedHeader, errors as joseErrors, jwtVerify, SignJWT, type JWTPayload } from 'jose';
import { isDelegableGrant, RISK_LEVELS } from '../../../domain/identity/capabilities';
import { SIGNING_ALGORITHM, type KeyRing } from './key-ring';
import type { Grant } from '../../../contracts/aggregates/delegation';
import type { TokenSettings } from '../authentication/actor';

/** A delegation token: the bearer credential of platform calls (spec: Delegation), typ dt+jwt so no other token passes for one. */
export const DELEGATION_TOKEN_TYPE = 'dt+jwt';

/**
 * What a delegation token says, every field a signed claim: its delegation's grant (the chain down to it: a revoked one anywhere kills
 * the token; the delegator, whose session the root was exchanged from; the passkey or device key that signed
 * that session in), and the token's own id and issue time.
 */
export type DelegationClaims = Grant & { delegation_id: string; token_id: string; issued_at: Date };

export async function signDelegationToken(
  keyRing: KeyRing,
  settings: TokenSettings,
  claims: DelegationClaims,
): Promise<string> {
  const { kid, privateKey } = await keyRing.signingKey();
  return new SignJWT({
    scope: claims.capabilities.join(' '),
    fam: claims.delegation_id,
    chain: claims.chain,
    pid: claims.passport_id,
    org: claims.organization_id,
    cred: claims.credential,
    risk: claims.risk_level,
    vt: claims.verification_tier,
    it: claims.identity_tier,
    ...(claims.environment !== null ? { env: claims.environment } : {}),
    ...(claims.agent_did !== null ? { act: { sub: claims.agent_did } } : {}),
  })
    .setProtectedHeader({ alg: SIGNING_ALGORITHM, typ: DELEGATION_TOKEN_TYPE, kid })
    .setIssuer(settings.issuer)
    .setAudience(settings.audience)
    .setSubject(claims.did)
    .setIssuedAt(Math.floor(claims.issued_at.getTime() / 1000))
    .setExpirationTime(Math.floor(claims.expires_at.getTime() / 1000))
    .setJti(claims.token_id)
    .sign(privateKey);
}

/** Whether a bearer token claims to be a delegation token (its header says so); verification decides whether it is one. */
export function isDelegationTokenHeader(token: string): boolean {
  try {
    return decodeProtectedHeader(token).typ === DELEGATION_TOKEN_TYPE;
  } catch {
    return false;
  }
}

export type DelegationTokenVerification = { ok: true; claims: DelegationClaims } | { ok: false; reason: string };

const isStringArray = (value: unknown): value is string[] =>
  Array.isArray(value) && value.every((item) => typeof item === 'string');

/** Signature, type, issuer, audience, expiry and the shape of every claim; revocation is the caller's check. */
export async function verifyDelegationToken(
  deps: { keyRing: KeyRing; settings: TokenSettings },
  token: string,
): Promise<DelegationTokenVerification> {
  let kid: string | undefined;
  try {
    kid = decodeProtectedHeader(token).kid;
  } catch {
    return { ok: false, reason: 'The delegation token is malformed' };
  }
  const key = kid ? await deps.keyRing.verificationKey(kid) : undefined;
  if (!key) return { ok: false, reason: 'The delegation token was not signed by a key of this deployment' };
  try {
    const { payload } = await jwtVerify(token, key, {
      algorithms: [SIGNING_ALGORITHM],
      issuer: deps.settings.issuer,
      audience: deps.settings.audience,
      typ: DELEGATION_TOKEN_TYPE,
      requiredClaims: ['exp', 'iat', 'sub', 'jti', 'fam', 'chain', 'pid', 'org', 'cred', 'risk', 'vt', 'it', 'scope'],
    });
    const claims = claimsOfPayload(payload);
    if (!claims) return { ok: false, reason: 'The delegation token’s claims are not well formed' };
    return { ok: true, claims };
  } catch (error) {
    if (error instanceof joseErrors.JWTExpired) return { ok: false, reason: 'The delegation token has expired' };
    if (error instanceof joseErrors.JOSEError)
      return { ok: false, reason: `The delegation token is not valid (${error.code})` };
    throw error;
  }
}

/** The claims of a verified payload when every one is present and of its type; undefined otherwise. */
function claimsOfPayload(payload: JWTPayload): DelegationClaims | undefined {
  const cred = payload.cred as { type?: unknown; id?: unknown } | null;
  const act = payload.act as { sub?: unknown } | undefined;
  const capabilities = typeof payload.scope === 'string' ? payload.scope.split(' ').filter(Boolean) : [];
  const risk = RISK_LEVELS.find((level) => level === payload.risk);
  const wellFormed =
    typeof payload.fam === 'string' &&
    isStringArray(payload.chain) &&
    payload.chain.at(-1) === payload.fam &&
    typeof payload.pid === 'string' &&
    typeof payload.org === 'string' &&
    typeof cred === 'object' &&
    cred !== null &&
    (cred.type === 'passkey' || cred.type === 'device_key') &&
    typeof cred.id === 'string' &&
    risk !== undefined &&
    typeof payload.vt === 'number' &&
    typeof payload.it === 'number' &&
    (payload.env === undefined || typeof payload.env === 'string') &&
    (act === undefined || typeof act.sub === 'string') &&
    capabilities.every(isDelegableGrant);
  if (!wellFormed) return undefined;
  return {
    token_id: payload.jti!,
    delegation_id: payload.fam as string,
    chain: payload.chain as string[],
    passport_id: payload.pid as string,
    did: payload.sub!,
    organization_id: payload.org as string,
    agent_did: (act?.sub as string | undefined) ?? null,
    capabilities,
    environment: (payload.env as string | undefined) ?? null,
    risk_level: risk,
    verification_tier: payload.vt as number,
    identity_tier: payload.it as number,
    credential: { type: cred.type as 'passkey' | 'device_key', id: cred.id as string },
    issued_at: new Date(payload.iat! * 1000),
    expires_at: new Date(payload.exp! * 1000),
  };
}

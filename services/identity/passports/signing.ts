import {
  decodeProtectedHeader,
  errors as joseErrors,
  importJWK,
  jwtVerify,
  SignJWT,
  type JWK,
  type JWTPayload,
} from 'jose';
import type { Knex } from 'knex';
import { findActiveServerKey, findPassport, findPassportKey } from '../../../db/passports';
import { keyVerifiesAt } from '../../../domain/identity/did';
import { createSecretBox } from '../../../lib/secret-box';
import { privateKeyContext } from './keys';
import type { PassportSettings } from './settings';

export interface PassportSigningDeps {
  db: Knex;
  settings: Pick<PassportSettings, 'secretKeys' | 'keyVerifyWindowSeconds'>;
}

export type SignOutcome =
  | { ok: true; token: string; kid: string }
  | {
      ok: false;
      code: 'passport_not_found' | 'passport_keys_on_device' | 'no_active_key' | 'secrets_unavailable';
      detail: string;
    }
  | { ok: false; code: 'lifetime_too_long'; detail: string };

/**
 * Signs claims as an agent or organization Passport: a JWT (EdDSA, iss = the Passport's DID, kid = the
 * key's thumbprint) by its current active key. A revoked or rotated-out key never signs. The lifetime is
 * at most the key verify window, so a rotated-out key verifies everything it signed until it expires.
 */
export async function signAsPassport(
  deps: PassportSigningDeps,
  passportId: string,
  claims: JWTPayload,
  options: { ttlSeconds: number; typ?: string; audience?: string; now?: Date },
): Promise<SignOutcome> {
  if (options.ttlSeconds > deps.settings.keyVerifyWindowSeconds) {
    return {
      ok: false,
      code: 'lifetime_too_long',
      detail: `A Passport signature lives at most ${deps.settings.keyVerifyWindowSeconds} s (PASSPORT_KEY_VERIFY_WINDOW_SECONDS)`,
    };
  }
  const passport = await findPassport(deps.db, passportId);
  if (!passport) return { ok: false, code: 'passport_not_found', detail: `No Passport ${passportId}` };
  if (passport.type === 'individual')
    return {
      ok: false,
      code: 'passport_keys_on_device',
      detail: 'A person’s keys live on their devices; the service cannot sign as them',
    };
  const key = await findActiveServerKey(deps.db, passportId);
  if (!key?.sealed_private_key)
    return {
      ok: false,
      code: 'no_active_key',
      detail: `${passport.did} has no active key: rotate its keys to make one`,
    };
  const box = createSecretBox(deps.settings.secretKeys);
  if (!box.canSeal)
    return { ok: false, code: 'secrets_unavailable', detail: 'SECRETS_ENCRYPTION_KEY is not configured' };
  const privateJwk = JSON.parse(box.open(key.sealed_private_key, privateKeyContext(passportId, key.kid))) as JWK;
  const issuedAt = Math.floor((options.now ?? new Date()).getTime() / 1000);
  const jwt = new SignJWT(claims)
    .setProtectedHeader({ alg: 'EdDSA', kid: key.kid, ...(options.typ ? { typ: options.typ } : {}) })
    .setIssuer(passport.did)
    .setIssuedAt(issuedAt)
    .setExpirationTime(issuedAt + options.ttlSeconds);
  if (options.audience) jwt.setAudience(options.audience);
  return { ok: true, token: await jwt.sign(await importJWK(privateJwk, 'EdDSA')), kid: key.kid };
}

export type SignatureVerification =
  { ok: true; payload: JWTPayload; passport_id: string; kid: string } | { ok: false; reason: string };

/**
 * Verifies a JWT a Passport signed: its kid must be a key of the Passport its iss names that still
 * verifies (active, or rotated out and within verify_until); a revoked key's signatures are refused.
 */
export async function verifyPassportSignature(
  db: Knex,
  token: string,
  options: { typ?: string; audience?: string; now?: Date } = {},
): Promise<SignatureVerification> {
  let kid: string | undefined;
  try {
    kid = decodeProtectedHeader(token).kid;
  } catch {
    return { ok: false, reason: 'The token is not a compact JWS' };
  }
  const key = kid ? await findPassportKey(db, kid) : undefined;
  if (!kid || !key) return { ok: false, reason: 'The token names no key of a Passport' };
  const now = options.now ?? new Date();
  if (key.status === 'revoked')
    return { ok: false, reason: `The key ${kid} was revoked at ${key.revoked_at?.toISOString() ?? 'some point'}` };
  if (!keyVerifiesAt({ status: key.status, verify_until: key.verify_until?.getTime() ?? null }, now.getTime()))
    return { ok: false, reason: `The key ${kid} was rotated out and verifies no more` };
  const passport = await findPassport(db, key.passport_id);
  if (!passport) return { ok: false, reason: 'The key’s Passport is gone' };
  try {
    const { payload } = await jwtVerify(token, await importJWK({ ...key.public_jwk }, 'EdDSA'), {
      algorithms: ['EdDSA'],
      issuer: passport.did,
      currentDate: now,
      ...(options.typ ? { typ: options.typ } : {}),
      ...(options.audience ? { audience: options.audience } : {}),
    });
    return { ok: true, payload, passport_id: passport.passport_id, kid };
  } catch (error) {
    if (error instanceof joseErrors.JOSEError)
      return { ok: false, reason: `The token does not verify (${error.code})` };
    throw error;
  }
}

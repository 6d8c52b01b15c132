import { decodeCredentialPublicKey } from '@simplewebauthn/server/helpers';
import type { Knex } from 'knex';
import { activePasskeysOf } from '../../../db/webauthn';
import { passkeyMethodId } from '../../../domain/identity/decision-signatures';
import type { PublishedPasskey } from '../../../domain/identity/did';

/** A passkey's public key as a JWK, with the signature algorithm it signs with (alg): what DID documents publish. */
export type PasskeyJwk =
  | { kty: 'EC'; crv: 'P-256' | 'P-384' | 'P-521'; x: string; y: string; alg: 'ES256' | 'ES384' | 'ES512' }
  | { kty: 'OKP'; crv: 'Ed25519'; x: string; alg: 'EdDSA' }
  | { kty: 'RSA'; n: string; e: string; alg: 'RS256' };

const COSE = { kty: 1, alg: 3, crv: -1, x: -2, y: -3, n: -1, e: -2 } as const;
const EC_CURVES: Partial<Record<number, 'P-256' | 'P-384' | 'P-521'>> = { 1: 'P-256', 2: 'P-384', 3: 'P-521' };
const EC_ALGS: Partial<Record<string, 'ES256' | 'ES384' | 'ES512'>> = { '-7': 'ES256', '-35': 'ES384', '-36': 'ES512' };

const b64u = (value: unknown) => Buffer.from(value as Uint8Array).toString('base64url');

/** The COSE public key stored with a passkey (base64url), as a JWK; undefined for a key type this service does not publish. */
export function passkeyJwk(coseKey: string): PasskeyJwk | undefined {
  const key = decodeCredentialPublicKey(Buffer.from(coseKey, 'base64url')) as unknown as Map<number, unknown>;
  const kty = key.get(COSE.kty);
  const alg = String(key.get(COSE.alg));
  if (kty === 2) {
    const crv = EC_CURVES[Number(key.get(COSE.crv))];
    const jwkAlg = EC_ALGS[alg];
    if (!crv || !jwkAlg) return undefined;
    return { kty: 'EC', crv, x: b64u(key.get(COSE.x)), y: b64u(key.get(COSE.y)), alg: jwkAlg };
  }
  if (kty === 1 && key.get(COSE.crv) === 6)
    return { kty: 'OKP', crv: 'Ed25519', x: b64u(key.get(COSE.x)), alg: 'EdDSA' };
  if (kty === 3 && alg === '-257')
    return { kty: 'RSA', n: b64u(key.get(COSE.n)), e: b64u(key.get(COSE.e)), alg: 'RS256' };
  return undefined;
}

/** The Passport's active passkeys as its DID document publishes them. */
export async function publishedPasskeys(
  db: Knex,
  passport: { passport_id: string; did: string },
): Promise<PublishedPasskey[]> {
  const passkeys = await activePasskeysOf(db, passport.passport_id);
  return passkeys.flatMap((passkey) => {
    const jwk = passkeyJwk(passkey.public_key);
    return jwk ? [{ id: passkeyMethodId(passport.did, passkey.credential_id), jwk }] : [];
  });
}

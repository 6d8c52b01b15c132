import { createHash, generateKeyPair } from 'node:crypto';
import { promisify } from 'node:util';
import type { NewPassportKey, PassportKeyRow } from '../../../db/passports';
import { keyVerifiesAt, thumbprintInput, type Ed25519PublicJwk, type PublishedKey } from '../../../domain/identity/did';
import type { SecretBox } from '../../../lib/secret-box';

const generateEd25519 = promisify(generateKeyPair);

/** RFC 7638: the SHA-256 of the key's required members, base64url. */
export function jwkThumbprint(jwk: Ed25519PublicJwk): string {
  return createHash('sha256').update(thumbprintInput(jwk)).digest('base64url');
}

export function publicJwkRow(jwk: Ed25519PublicJwk, kid: string): NewPassportKey['public_jwk'] {
  return { kty: jwk.kty, crv: jwk.crv, x: jwk.x, kid, alg: 'EdDSA', use: 'sig' };
}

/** Binds a sealed private key to its Passport and key: copied to another row, it does not open. */
export function privateKeyContext(passportId: string, kid: string): string {
  return `passport_key:${passportId}:${kid}`;
}

/** An Ed25519 key pair for an agent or organization Passport; only its sealed private JWK is kept. */
export async function newServerKey(box: SecretBox, passportId: string): Promise<NewPassportKey> {
  const { publicKey, privateKey } = await generateEd25519('ed25519');
  const exported = publicKey.export({ format: 'jwk' });
  const jwk: Ed25519PublicJwk = { kty: 'OKP', crv: 'Ed25519', x: exported.x ?? '' };
  const kid = jwkThumbprint(jwk);
  return {
    kid,
    passport_id: passportId,
    public_jwk: publicJwkRow(jwk, kid),
    sealed_private_key: box.seal(
      JSON.stringify(privateKey.export({ format: 'jwk' })),
      privateKeyContext(passportId, kid),
    ),
    source: 'server',
    device_id: null,
  };
}

export function publishedKey(row: Pick<PassportKeyRow, 'kid' | 'public_jwk'>): PublishedKey {
  return { kid: row.kid, jwk: { kty: 'OKP', crv: 'Ed25519', x: row.public_jwk.x } };
}

/** The keys a Passport publishes (DID document, JWKS): those whose signatures still verify now. */
export function verifyingKeys(rows: readonly PassportKeyRow[], now: Date): PassportKeyRow[] {
  return rows.filter((row) =>
    keyVerifiesAt({ status: row.status, verify_until: row.verify_until?.getTime() ?? null }, now.getTime()),
  );
}

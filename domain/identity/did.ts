/**
 * Decentralized identifiers of Passports: did:web (where a Passport's DID document is served), did:key (the
 * self-certifying alias of each Ed25519 key), RFC 7638 thumbprint input, and the two document shapes. Pure:
 * bytes are Uint8Array, hashing is the caller's.
 */

export interface Ed25519PublicJwk {
  kty: 'OKP';
  crv: 'Ed25519';
  /** The 32-byte public key, base64url without padding. */
  x: string;
}

/** A key as its Passport publishes it: its RFC 7638 thumbprint and public JWK. */
export interface PublishedKey {
  kid: string;
  jwk: Ed25519PublicJwk;
}

const BASE58_ALPHABET = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';
const BASE64URL_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
const BASE64_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';

/** The multicodec prefix of an Ed25519 public key (0xed, as an unsigned varint). */
const ED25519_PUB_MULTICODEC = [0xed, 0x01];
/** DER of SubjectPublicKeyInfo for Ed25519 (RFC 8410) up to the 32 key bytes. */
const ED25519_SPKI_PREFIX = [0x30, 0x2a, 0x30, 0x05, 0x06, 0x03, 0x2b, 0x65, 0x70, 0x03, 0x21, 0x00];
const ED25519_KEY_BYTES = 32;

export function base58btcEncode(bytes: Uint8Array): string {
  const digits: number[] = [];
  for (const byte of bytes) {
    let carry = byte;
    for (let i = 0; i < digits.length; i++) {
      carry += (digits[i] ?? 0) << 8;
      digits[i] = carry % 58;
      carry = Math.floor(carry / 58);
    }
    while (carry > 0) {
      digits.push(carry % 58);
      carry = Math.floor(carry / 58);
    }
  }
  let leadingZeros = 0;
  while (leadingZeros < bytes.length && bytes[leadingZeros] === 0) leadingZeros++;
  return (
    '1'.repeat(leadingZeros) +
    digits
      .reverse()
      .map((digit) => BASE58_ALPHABET.charAt(digit))
      .join('')
  );
}

export function base58btcDecode(text: string): Uint8Array | undefined {
  const bytes: number[] = [];
  for (const char of text) {
    let carry = BASE58_ALPHABET.indexOf(char);
    if (carry < 0) return undefined;
    for (let i = 0; i < bytes.length; i++) {
      carry += (bytes[i] ?? 0) * 58;
      bytes[i] = carry & 0xff;
      carry >>= 8;
    }
    while (carry > 0) {
      bytes.push(carry & 0xff);
      carry >>= 8;
    }
  }
  let leadingOnes = 0;
  while (leadingOnes < text.length && text[leadingOnes] === '1') leadingOnes++;
  return Uint8Array.from([...new Array<number>(leadingOnes).fill(0), ...bytes.reverse()]);
}

function encode64(bytes: Uint8Array, alphabet: string, pad: boolean): string {
  let out = '';
  for (let i = 0; i < bytes.length; i += 3) {
    const chunk = ((bytes[i] ?? 0) << 16) | ((bytes[i + 1] ?? 0) << 8) | (bytes[i + 2] ?? 0);
    const chars = Math.min(4, Math.ceil(((bytes.length - i) * 8) / 6));
    for (let j = 0; j < 4; j++) out += j < chars ? alphabet.charAt((chunk >> (18 - 6 * j)) & 63) : pad ? '=' : '';
  }
  return out;
}

export function base64urlEncode(bytes: Uint8Array): string {
  return encode64(bytes, BASE64URL_ALPHABET, false);
}

/** Strict: the unpadded base64url alphabet only, and no stray bits in the last character. */
export function base64urlDecode(text: string): Uint8Array | undefined {
  if (text.length % 4 === 1) return undefined;
  const bytes: number[] = [];
  let buffer = 0;
  let bits = 0;
  for (const char of text) {
    const value = BASE64URL_ALPHABET.indexOf(char);
    if (value < 0) return undefined;
    buffer = (buffer << 6) | value;
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      bytes.push((buffer >> bits) & 0xff);
    }
  }
  if ((buffer & ((1 << bits) - 1)) !== 0) return undefined;
  return Uint8Array.from(bytes);
}

export type JwkParse = { ok: true; jwk: Ed25519PublicJwk } | { ok: false; reason: string };

/**
 * A public Ed25519 JWK as a device sends it. One that carries its private part (d) is refused: the
 * service never holds a person's private key, not even for a moment.
 */
export function parseEd25519PublicJwk(value: unknown): JwkParse {
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    return { ok: false, reason: 'must be a JSON Web Key object' };
  const jwk = value as Record<string, unknown>;
  if ('d' in jwk)
    return {
      ok: false,
      reason: 'must be the public key only: it carries a private key (d), which must never leave the device',
    };
  if (jwk.kty !== 'OKP' || jwk.crv !== 'Ed25519')
    return { ok: false, reason: 'must be an Ed25519 key (kty OKP, crv Ed25519)' };
  if (typeof jwk.x !== 'string') return { ok: false, reason: 'must have x, the public key in base64url' };
  const bytes = base64urlDecode(jwk.x);
  if (bytes?.length !== ED25519_KEY_BYTES) return { ok: false, reason: 'x must be 32 bytes in unpadded base64url' };
  return { ok: true, jwk: { kty: 'OKP', crv: 'Ed25519', x: jwk.x } };
}

/** What RFC 7638 hashes for an OKP key: its required members in lexicographic order, no whitespace. */
export function thumbprintInput(jwk: Ed25519PublicJwk): string {
  return JSON.stringify({ crv: jwk.crv, kty: jwk.kty, x: jwk.x });
}

export function didKeyOfEd25519(publicKey: Uint8Array): string {
  return `did:key:z${base58btcEncode(Uint8Array.from([...ED25519_PUB_MULTICODEC, ...publicKey]))}`;
}

export function didKeyOfJwk(jwk: Ed25519PublicJwk): string {
  return didKeyOfEd25519(base64urlDecode(jwk.x) ?? new Uint8Array());
}

/** The Ed25519 public key a did:key names, or undefined when it names none (another key type, bad encoding). */
export function ed25519JwkOfDidKey(did: string): Ed25519PublicJwk | undefined {
  const match = /^did:key:z([1-9A-HJ-NP-Za-km-z]+)$/.exec(did);
  const bytes = match?.[1] ? base58btcDecode(match[1]) : undefined;
  if (bytes?.length !== ED25519_PUB_MULTICODEC.length + ED25519_KEY_BYTES) return undefined;
  if (bytes[0] !== ED25519_PUB_MULTICODEC[0] || bytes[1] !== ED25519_PUB_MULTICODEC[1]) return undefined;
  return { kty: 'OKP', crv: 'Ed25519', x: base64urlEncode(bytes.subarray(ED25519_PUB_MULTICODEC.length)) };
}

export function ed25519PublicKeyPem(jwk: Ed25519PublicJwk): string {
  const der = Uint8Array.from([...ED25519_SPKI_PREFIX, ...(base64urlDecode(jwk.x) ?? [])]);
  const body = encode64(der, BASE64_ALPHABET, true);
  return `-----BEGIN PUBLIC KEY-----\n${body}\n-----END PUBLIC KEY-----\n`;
}

/** did:web segments: the host (its port's colon percent-encoded), then each path segment. */
function didWebSegments(publicBaseUrl: string): string[] {
  const url = new URL(publicBaseUrl);
  const path = url.pathname.split('/').filter((segment) => segment !== '');
  return [encodeURIComponent(url.host), ...path.map((segment) => encodeURIComponent(decodeURIComponent(segment)))];
}

/** did:web:<host>:passports:<id>, served at <base>/passports/<id>/did.json. */
export function passportDidWeb(publicBaseUrl: string, passportId: string): string {
  return ['did', 'web', ...didWebSegments(publicBaseUrl), 'passports', encodeURIComponent(passportId)].join(':');
}

/**
 * Where a did:web DID's document is, as the did:web method resolves it: colons become slashes, the host's
 * percent-encoded port is decoded, /did.json is appended (/.well-known/did.json for a bare host). The scheme
 * is https by the method; a local test server may ask for http.
 */
export function didWebDocumentUrl(did: string, scheme: 'https' | 'http' = 'https'): string | undefined {
  const match = /^did:web:([^:#?/]+)((?::[^:#?/]+)*)$/.exec(did);
  if (!match?.[1]) return undefined;
  const host = decodeURIComponent(match[1]);
  const path = (match[2] ?? '').split(':').filter((segment) => segment !== '');
  return path.length === 0
    ? `${scheme}://${host}/.well-known/did.json`
    : `${scheme}://${host}/${path.join('/')}/did.json`;
}

export const DID_DOCUMENT_MEDIA_TYPE = 'application/did+json';

/** A passkey as its Passport's DID document publishes it: the method id and its public JWK (ES256, EdDSA or RS256). */
export interface PublishedPasskey {
  id: string;
  jwk: Record<string, string>;
}

/**
 * A DID Core document: one JsonWebKey verification method per key that still verifies, its id the DID
 * URL of its thumbprint, so the document and the Passport's JWKS name the same keys; each key's did:key
 * form as an alias. A person's active passkeys follow as methods of their own (`#passkey-<credential id>`),
 * so that a decision they signed in the inbox verifies against this document alone.
 */
export function didDocument(
  did: string,
  keys: readonly PublishedKey[],
  controller: string = did,
  passkeys: readonly PublishedPasskey[] = [],
) {
  const methodIds = [...keys.map((key) => `${did}#${key.kid}`), ...passkeys.map((passkey) => passkey.id)];
  return {
    '@context': ['https://www.w3.org/ns/did/v1', 'https://w3id.org/security/jwk/v1'],
    id: did,
    controller,
    alsoKnownAs: keys.map((key) => didKeyOfJwk(key.jwk)),
    verificationMethod: [
      ...keys.map((key, index) => ({
        id: methodIds[index] ?? '',
        type: 'JsonWebKey',
        controller: did,
        publicKeyJwk: { ...key.jwk, kid: key.kid, alg: 'EdDSA', use: 'sig' },
      })),
      ...passkeys.map((passkey) => ({
        id: passkey.id,
        type: 'JsonWebKey',
        controller: did,
        publicKeyJwk: passkey.jwk,
      })),
    ],
    authentication: methodIds,
    assertionMethod: methodIds,
  };
}

/** The platform spec's shape of the same document: PEM public keys and authentication entries naming them. */
export function specDidDocument(did: string, keys: readonly PublishedKey[]) {
  const publicKey = keys.map((key) => ({
    id: `${did}#${key.kid}`,
    type: 'Ed25519VerificationKey2018',
    controller: did,
    publicKeyPem: ed25519PublicKeyPem(key.jwk),
  }));
  return {
    id: did,
    publicKey,
    authentication: publicKey.map((key) => ({ type: 'Ed25519SignatureAuthentication2018', publicKey: key.id })),
  };
}

export type PassportKeyStatus = 'active' | 'retired' | 'revoked';

/**
 * Whether what a key signed still verifies at a moment: an active key's does; a rotated-out key's does
 * until its verify_until (when the longest-lived thing it signed expires); a revoked key's never does.
 */
export function keyVerifiesAt(key: { status: PassportKeyStatus; verify_until: number | null }, nowMs: number): boolean {
  if (key.status === 'active') return true;
  if (key.status === 'retired') return key.verify_until !== null && key.verify_until > nowMs;
  return false;
}

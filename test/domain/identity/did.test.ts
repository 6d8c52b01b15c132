import { createHash, createPrivateKey, createPublicKey, generateKeyPairSync } from 'node:crypto';
import {
  base58btcDecode,
  base58btcEncode,
  base64urlDecode,
  base64urlEncode,
  didDocument,
  didKeyOfEd25519,
  didKeyOfJwk,
  didWebDocumentUrl,
  ed25519JwkOfDidKey,
  ed25519PublicKeyPem,
  keyVerifiesAt,
  parseEd25519PublicJwk,
  passportDidWeb,
  specDidDocument,
  thumbprintInput,
  type Ed25519PublicJwk,
} from '../../../domain/identity/did';
import vectors from '../../fixtures/did-key-ed25519.json';

/** PKCS #8 DER of an Ed25519 private key, up to its 32-byte seed (RFC 8410). */
const PKCS8_ED25519_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex');

function publicKeyOfSeed(seedHex: string): Uint8Array {
  const privateKey = createPrivateKey({
    key: Buffer.concat([PKCS8_ED25519_PREFIX, Buffer.from(seedHex, 'hex')]),
    format: 'der',
    type: 'pkcs8',
  });
  const jwk = createPublicKey(privateKey).export({ format: 'jwk' });
  return Buffer.from(jwk.x!, 'base64url');
}

describe('did:key for Ed25519 (w3c-ccg did-method-key test vectors)', () => {
  it.each(vectors.vectors)('seed $seed gives $did', ({ seed, publicKeyBase58, did }) => {
    const publicKey = publicKeyOfSeed(seed);
    expect(base58btcEncode(publicKey)).toBe(publicKeyBase58);
    expect(didKeyOfEd25519(publicKey)).toBe(did);
    const jwk: Ed25519PublicJwk = { kty: 'OKP', crv: 'Ed25519', x: Buffer.from(publicKey).toString('base64url') };
    expect(didKeyOfJwk(jwk)).toBe(did);
    expect(ed25519JwkOfDidKey(did)).toEqual(jwk);
  });

  it.each([
    ['another key type (an X25519 did:key)', 'did:key:z6LShs9GGnqk85isEBzzshkuVWrVKsRp24GnDuHk8QWkARMW'],
    ['a character outside base58btc', 'did:key:z6MkiTBz1ymuepAQ4HEHYSF1H8quG5GLVVQR3djdX3mDooW0'],
    ['a truncated key', 'did:key:z6MkiTBz1ymuepAQ4HEHYSF1H8quG5GLVVQR3djdX3mDoo'],
    ['another multibase', 'did:key:f6MkiTBz1ymuepAQ4HEHYSF1H8quG5GLVVQR3djdX3mDooWp'],
    ['another method', 'did:web:example.com'],
  ])('names no Ed25519 key for %s', (_case, did) => {
    expect(ed25519JwkOfDidKey(did)).toBeUndefined();
  });
});

describe('base58btc and base64url', () => {
  it.each([
    [[], ''],
    [[0], '1'],
    [[0, 0, 1], '112'],
    [[0xff], '5Q'],
    [[...Buffer.from('hello world')], 'StV1DL6CwTryKyV'],
  ])('base58btc of %j is %s, and back', (bytes, text) => {
    expect(base58btcEncode(Uint8Array.from(bytes))).toBe(text);
    expect([...(base58btcDecode(text) ?? [])]).toEqual(bytes);
  });

  it('agrees with Node on random bytes of every length up to 40', () => {
    for (let length = 0; length <= 40; length++) {
      const bytes = createHash('sha512').update(String(length)).digest().subarray(0, length);
      expect(base64urlEncode(bytes)).toBe(bytes.toString('base64url'));
      expect(Buffer.from(base64urlDecode(bytes.toString('base64url')) ?? [])).toEqual(bytes);
    }
  });

  it.each(['a', 'ab=', 'a+b/', 'AB'])('refuses %j as unpadded base64url of whole bytes', (text) => {
    expect(base64urlDecode(text)).toBeUndefined();
  });
});

describe('public JWKs a device sends', () => {
  const x = Buffer.alloc(32, 7).toString('base64url');
  it.each([
    ['a private key', { kty: 'OKP', crv: 'Ed25519', x, d: x }, /private key/],
    ['another curve', { kty: 'OKP', crv: 'X25519', x }, /Ed25519/],
    ['an RSA key', { kty: 'RSA', n: 'AQAB', e: 'AQAB' }, /Ed25519/],
    ['a short x', { kty: 'OKP', crv: 'Ed25519', x: 'AAAA' }, /32 bytes/],
    ['no x', { kty: 'OKP', crv: 'Ed25519' }, /x/],
    ['a string', 'did:key:z6Mk', /object/],
    ['null', null, /object/],
  ])('refuses %s', (_case, value, reason) => {
    const parsed = parseEd25519PublicJwk(value);
    expect(parsed.ok).toBe(false);
    if (!parsed.ok) expect(parsed.reason).toMatch(reason);
  });

  it('keeps only the members that make the key, and thumbprints them as RFC 7638 says', () => {
    const parsed = parseEd25519PublicJwk({ kty: 'OKP', crv: 'Ed25519', x, kid: 'mine', use: 'sig', alg: 'EdDSA' });
    expect(parsed).toEqual({ ok: true, jwk: { kty: 'OKP', crv: 'Ed25519', x } });
    if (parsed.ok) expect(thumbprintInput(parsed.jwk)).toBe(`{"crv":"Ed25519","kty":"OKP","x":"${x}"}`);
  });

  it('RFC 8037 A.3: the thumbprint of the RFC’s Ed25519 key', () => {
    const jwk: Ed25519PublicJwk = { kty: 'OKP', crv: 'Ed25519', x: '11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo' };
    expect(createHash('sha256').update(thumbprintInput(jwk)).digest('base64url')).toBe(
      'kPrK_qmxVWaYVA9wwBF6Iuo3vVzz7TxHCTwXBygrS4k',
    );
  });
});

describe('did:web', () => {
  it.each([
    [
      'https://handoff.example',
      'pp_1',
      'did:web:handoff.example:passports:pp_1',
      'https://handoff.example/passports/pp_1/did.json',
    ],
    [
      'http://127.0.0.1:3000',
      'pp_2',
      'did:web:127.0.0.1%3A3000:passports:pp_2',
      'https://127.0.0.1:3000/passports/pp_2/did.json',
    ],
    [
      'https://example.com/handoff/',
      'pp_3',
      'did:web:example.com:handoff:passports:pp_3',
      'https://example.com/handoff/passports/pp_3/did.json',
    ],
  ])('%s and %s make %s, resolved at %s', (base, id, did, url) => {
    expect(passportDidWeb(base, id)).toBe(did);
    expect(didWebDocumentUrl(did)).toBe(url);
  });

  it('resolves a bare host to /.well-known/did.json, and nothing for another method', () => {
    expect(didWebDocumentUrl('did:web:w3c-ccg.github.io')).toBe('https://w3c-ccg.github.io/.well-known/did.json');
    expect(didWebDocumentUrl('did:web:localhost%3A8443', 'http')).toBe('http://localhost:8443/.well-known/did.json');
    expect(didWebDocumentUrl('did:key:z6MkiTBz1ymuepAQ4HEHYSF1H8quG5GLVVQR3djdX3mDooWp')).toBeUndefined();
  });
});

describe('DID documents', () => {
  const { publicKey } = generateKeyPairSync('ed25519');
  const jwk = publicKey.export({ format: 'jwk' }) as Ed25519PublicJwk;
  const key = { kid: 'thumb', jwk: { kty: 'OKP' as const, crv: 'Ed25519' as const, x: jwk.x } };
  const did = 'did:web:handoff.example:passports:pp_1';

  it('names each key by its thumbprint, as a JsonWebKey, with its did:key as an alias', () => {
    const doc = didDocument(did, [key]);
    expect(doc).toMatchObject({
      id: did,
      alsoKnownAs: [didKeyOfJwk(key.jwk)],
      verificationMethod: [
        {
          id: `${did}#thumb`,
          type: 'JsonWebKey',
          controller: did,
          publicKeyJwk: { ...key.jwk, kid: 'thumb', alg: 'EdDSA' },
        },
      ],
      authentication: [`${did}#thumb`],
      assertionMethod: [`${did}#thumb`],
    });
  });

  it('gives the spec’s shape a PEM that Node reads as the same key', () => {
    const doc = specDidDocument(did, [key]);
    expect(doc.authentication).toEqual([{ type: 'Ed25519SignatureAuthentication2018', publicKey: `${did}#thumb` }]);
    const pem = doc.publicKey[0]!.publicKeyPem;
    expect(pem).toBe(ed25519PublicKeyPem(key.jwk));
    expect(createPublicKey(pem).export({ format: 'jwk' })).toEqual({ kty: 'OKP', crv: 'Ed25519', x: jwk.x });
  });
});

describe('which keys verify', () => {
  const now = Date.UTC(2026, 10, 25);
  it.each([
    ['an active key', { status: 'active' as const, verify_until: null }, true],
    ['a rotated-out key before its verify_until', { status: 'retired' as const, verify_until: now + 1 }, true],
    ['a rotated-out key at its verify_until', { status: 'retired' as const, verify_until: now }, false],
    ['a rotated-out key without a verify_until', { status: 'retired' as const, verify_until: null }, false],
    ['a revoked key', { status: 'revoked' as const, verify_until: now + 1_000_000 }, false],
  ])('%s: %s', (_case, key, verifies) => {
    expect(keyVerifiesAt(key, now)).toBe(verifies);
  });
});

import { createHash, generateKeyPairSync, randomBytes, sign, type KeyObject } from 'node:crypto';
import type {
  AuthenticationResponseJSON,
  PublicKeyCredentialCreationOptionsJSON,
  PublicKeyCredentialRequestOptionsJSON,
  RegistrationResponseJSON,
} from '@simplewebauthn/server';

/** The CBOR (RFC 8949) a WebAuthn authenticator writes: unsigned and negative integers, byte and text strings, arrays and maps. */
type Cbor = number | string | Uint8Array | Cbor[] | Map<number | string, Cbor>;

function cborHead(major: number, length: number): Buffer {
  if (length < 24) return Buffer.from([(major << 5) | length]);
  if (length < 0x100) return Buffer.from([(major << 5) | 24, length]);
  if (length < 0x10000) return Buffer.from([(major << 5) | 25, length >> 8, length & 0xff]);
  const head = Buffer.alloc(5);
  head[0] = (major << 5) | 26;
  head.writeUInt32BE(length, 1);
  return head;
}

export function encodeCbor(value: Cbor): Buffer {
  if (typeof value === 'number') return value >= 0 ? cborHead(0, value) : cborHead(1, -1 - value);
  if (typeof value === 'string') {
    const bytes = Buffer.from(value, 'utf8');
    return Buffer.concat([cborHead(3, bytes.length), bytes]);
  }
  if (value instanceof Uint8Array) return Buffer.concat([cborHead(2, value.length), value]);
  if (Array.isArray(value)) return Buffer.concat([cborHead(4, value.length), ...value.map(encodeCbor)]);
  return Buffer.concat([
    cborHead(5, value.size),
    ...[...value].flatMap(([key, item]) => [encodeCbor(key), encodeCbor(item)]),
  ]);
}

const sha256 = (data: Buffer | string) => createHash('sha256').update(data).digest();
const b64url = (data: Buffer | Uint8Array) => Buffer.from(data).toString('base64url');

export const FLAGS = { UP: 0x01, UV: 0x04, AT: 0x40 } as const;

export interface CeremonyOverrides {
  /** The page's origin as the browser reports it in clientDataJSON. */
  origin?: string;
  /** The RP id whose hash starts authenticatorData; the options' by default. */
  rpId?: string;
  /** Authenticator data flags; UP|UV (and AT when registering) by default. */
  flags?: number;
  /** The challenge to sign; the options' by default. */
  challenge?: string;
  /** The signature counter to report; the authenticator's next by default. */
  counter?: number;
}

/**
 * A passkey authenticator in software, as a browser and its platform authenticator would answer the
 * server's options: a P-256 (ES256) key, attestation "none", a signature counter that grows by one per use.
 */
export class SoftwareAuthenticator {
  readonly credentialId: Buffer;
  private readonly privateKey: KeyObject;
  private readonly publicKey: KeyObject;
  /** The last counter this authenticator reported. */
  counter: number;
  userHandle: string | undefined;

  constructor(state?: {
    credentialId: Buffer;
    privateKey: KeyObject;
    publicKey: KeyObject;
    counter: number;
    userHandle: string | undefined;
  }) {
    if (state) {
      ({
        credentialId: this.credentialId,
        privateKey: this.privateKey,
        publicKey: this.publicKey,
        counter: this.counter,
        userHandle: this.userHandle,
      } = state);
      return;
    }
    const pair = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    this.privateKey = pair.privateKey;
    this.publicKey = pair.publicKey;
    this.credentialId = randomBytes(32);
    this.counter = 0;
  }

  get id(): string {
    return b64url(this.credentialId);
  }

  /** Another authenticator holding the same key and counter: what cloning a passkey gives. */
  clone(): SoftwareAuthenticator {
    return new SoftwareAuthenticator({
      credentialId: this.credentialId,
      privateKey: this.privateKey,
      publicKey: this.publicKey,
      counter: this.counter,
      userHandle: this.userHandle,
    });
  }

  private coseKey(): Buffer {
    const jwk = this.publicKey.export({ format: 'jwk' });
    return encodeCbor(
      new Map<number, Cbor>([
        [1, 2], // kty: EC2
        [3, -7], // alg: ES256
        [-1, 1], // crv: P-256
        [-2, Buffer.from(jwk.x!, 'base64url')],
        [-3, Buffer.from(jwk.y!, 'base64url')],
      ]),
    );
  }

  private authenticatorData(rpId: string, flags: number, counter: number, attested?: Buffer): Buffer {
    const count = Buffer.alloc(4);
    count.writeUInt32BE(counter);
    return Buffer.concat([sha256(rpId), Buffer.from([flags]), count, ...(attested ? [attested] : [])]);
  }

  /** navigator.credentials.create({ publicKey: options }), serialized by toJSON(). */
  register(
    options: PublicKeyCredentialCreationOptionsJSON,
    origin: string,
    overrides: CeremonyOverrides = {},
  ): RegistrationResponseJSON {
    const clientDataJSON = Buffer.from(
      JSON.stringify({
        type: 'webauthn.create',
        challenge: overrides.challenge ?? options.challenge,
        origin: overrides.origin ?? origin,
        crossOrigin: false,
      }),
    );
    const idLength = Buffer.alloc(2);
    idLength.writeUInt16BE(this.credentialId.length);
    const attested = Buffer.concat([Buffer.alloc(16), idLength, this.credentialId, this.coseKey()]);
    const counter = overrides.counter ?? this.counter;
    const authData = this.authenticatorData(
      overrides.rpId ?? options.rp.id ?? '',
      overrides.flags ?? FLAGS.UP | FLAGS.UV | FLAGS.AT,
      counter,
      attested,
    );
    const attestationObject = encodeCbor(
      new Map<string, Cbor>([
        ['fmt', 'none'],
        ['attStmt', new Map()],
        ['authData', authData],
      ]),
    );
    this.userHandle = options.user.id;
    return {
      id: this.id,
      rawId: this.id,
      type: 'public-key',
      response: {
        clientDataJSON: b64url(clientDataJSON),
        attestationObject: b64url(attestationObject),
        transports: ['internal'],
      },
      authenticatorAttachment: 'platform',
      clientExtensionResults: {},
    };
  }

  /** navigator.credentials.get({ publicKey: options }), serialized by toJSON(); the counter grows by one. */
  assert(
    options: PublicKeyCredentialRequestOptionsJSON,
    origin: string,
    overrides: CeremonyOverrides = {},
  ): AuthenticationResponseJSON {
    const clientDataJSON = Buffer.from(
      JSON.stringify({
        type: 'webauthn.get',
        challenge: overrides.challenge ?? options.challenge,
        origin: overrides.origin ?? origin,
        crossOrigin: false,
      }),
    );
    const counter = overrides.counter ?? this.counter + 1;
    this.counter = Math.max(this.counter, counter);
    const authData = this.authenticatorData(
      overrides.rpId ?? options.rpId ?? '',
      overrides.flags ?? FLAGS.UP | FLAGS.UV,
      counter,
    );
    const signature = sign('sha256', Buffer.concat([authData, sha256(clientDataJSON)]), this.privateKey);
    return {
      id: this.id,
      rawId: this.id,
      type: 'public-key',
      response: {
        clientDataJSON: b64url(clientDataJSON),
        authenticatorData: b64url(authData),
        signature: b64url(signature),
        ...(this.userHandle ? { userHandle: this.userHandle } : {}),
      },
      authenticatorAttachment: 'platform',
      clientExtensionResults: {},
    };
  }
}

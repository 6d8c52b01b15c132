/**
 * C2SP signed notes (https://c2sp.org/signed-note) with Ed25519, as golang.org/x/mod/sumdb/note writes
 * them: the note text, a blank line, and one line `— <key name> base64(key ID || signature)` per
 * signature. Key ID = SHA-256(key name || 0x0A || 0x01 || public key)[:4]; a verifier key is written
 * `<name>+<8 hex digits of the key ID>+<base64(0x01 || public key)>`.
 */
import { createHash, createPrivateKey, createPublicKey, sign, verify, type KeyObject } from 'node:crypto';

const ED25519_TYPE = 0x01;
const EM_DASH_PREFIX = '\u2014 ';
// DER wrappers that turn a raw 32-byte Ed25519 key into PKCS#8 / SPKI, which node:crypto imports.
const PKCS8_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex');
const SPKI_PREFIX = Buffer.from('302a300506032b6570032100', 'hex');

export class NoteError extends Error {
  override name = 'NoteError';
}

export interface NoteVerifier {
  name: string;
  keyId: number;
  publicKey: Buffer;
}

export interface NoteSigner extends NoteVerifier {
  sign(text: string): Buffer;
}

/** C2SP signed-note: no ASCII control characters but newline. */
function hasControlCharacters(text: string): boolean {
  for (let i = 0; i < text.length; i += 1) {
    const code = text.charCodeAt(i);
    if (code < 0x20 && code !== 0x0a) return true;
  }
  return false;
}

function validKeyName(name: string): boolean {
  return name.length > 0 && !/[\s+]/u.test(name);
}

export function noteKeyId(name: string, publicKey: Uint8Array): number {
  const digest = createHash('sha256')
    .update(name, 'utf8')
    .update(Buffer.from([0x0a, ED25519_TYPE]))
    .update(publicKey)
    .digest();
  return digest.readUInt32BE(0);
}

const hexKeyId = (keyId: number) => keyId.toString(16).padStart(8, '0');

export function verifierKeyString(verifier: Pick<NoteVerifier, 'name' | 'publicKey'>): string {
  return `${verifier.name}+${hexKeyId(noteKeyId(verifier.name, verifier.publicKey))}+${Buffer.concat([Buffer.from([ED25519_TYPE]), verifier.publicKey]).toString('base64')}`;
}

/** Parses a verifier key and checks that its key ID matches its name and key. */
export function parseVerifierKey(vkey: string): NoteVerifier {
  const first = vkey.indexOf('+');
  const second = vkey.indexOf('+', first + 1);
  if (first < 0 || second < 0) throw new NoteError('a verifier key is <name>+<key id>+<key>');
  const name = vkey.slice(0, first);
  const idHex = vkey.slice(first + 1, second);
  const key = Buffer.from(vkey.slice(second + 1), 'base64');
  if (!validKeyName(name)) throw new NoteError('the key name is empty or holds a space or plus');
  if (!/^[0-9a-f]{8}$/.test(idHex)) throw new NoteError('the key id is not 8 lowercase hex digits');
  if (key.length !== 33 || key[0] !== ED25519_TYPE || key.toString('base64') !== vkey.slice(second + 1))
    throw new NoteError('the key is not a base64 Ed25519 key (type 0x01)');
  const publicKey = key.subarray(1);
  const keyId = Number.parseInt(idHex, 16);
  if (noteKeyId(name, publicKey) !== keyId) throw new NoteError('the key id does not match the key name and key');
  return { name, keyId, publicKey };
}

function privateKeyObject(seed: Uint8Array): KeyObject {
  return createPrivateKey({ key: Buffer.concat([PKCS8_PREFIX, seed]), format: 'der', type: 'pkcs8' });
}

export function publicKeyObject(publicKey: Uint8Array): KeyObject {
  return createPublicKey({ key: Buffer.concat([SPKI_PREFIX, publicKey]), format: 'der', type: 'spki' });
}

/** The raw 32-byte public key of a 32-byte Ed25519 seed. */
export function publicKeyOfSeed(seed: Uint8Array): Buffer {
  const der = createPublicKey(privateKeyObject(seed)).export({ format: 'der', type: 'spki' });
  return der.subarray(SPKI_PREFIX.length);
}

export function createNoteSigner(name: string, seed: Uint8Array): NoteSigner {
  if (!validKeyName(name))
    throw new NoteError(`${JSON.stringify(name)} cannot name a key: it is empty or holds a space or plus`);
  if (seed.length !== 32) throw new NoteError('an Ed25519 seed is 32 bytes');
  const key = privateKeyObject(seed);
  const publicKey = publicKeyOfSeed(seed);
  return {
    name,
    publicKey,
    keyId: noteKeyId(name, publicKey),
    sign: (text) => sign(null, Buffer.from(text, 'utf8'), key),
  };
}

/** The signed note of `text` (which must end in a newline). */
export function signNote(text: string, signer: NoteSigner): string {
  if (!text.endsWith('\n') || text.includes('\n\n') || hasControlCharacters(text))
    throw new NoteError('a note text is non-empty lines, each ending in a newline');
  const keyId = Buffer.alloc(4);
  keyId.writeUInt32BE(signer.keyId);
  const signature = Buffer.concat([keyId, signer.sign(text)]).toString('base64');
  return `${text}\n${EM_DASH_PREFIX}${signer.name} ${signature}\n`;
}

/**
 * The text of a note, once a signature by the verifier's key checks out. Signatures by other keys are
 * ignored, as the spec asks; a signature by this key that does not verify rejects the note.
 */
export function openNote(note: string, verifier: NoteVerifier): string {
  if (!note.endsWith('\n')) throw new NoteError('a signed note ends in a newline');
  if (hasControlCharacters(note)) throw new NoteError('a signed note holds no control characters but newlines');
  const split = note.lastIndexOf('\n\n');
  if (split < 0) throw new NoteError('a signed note has a blank line before its signatures');
  const text = note.slice(0, split + 1);
  const lines = note.slice(split + 2, -1).split('\n');
  let verified = false;
  for (const line of lines) {
    if (!line.startsWith(EM_DASH_PREFIX)) throw new NoteError('a signature line starts with an em dash and a space');
    const [name, signature, ...rest] = line.slice(EM_DASH_PREFIX.length).split(' ');
    if (!name || !signature || rest.length > 0)
      throw new NoteError('a signature line is `— <key name> <base64 signature>`');
    const blob = Buffer.from(signature, 'base64');
    if (blob.length < 5 || blob.toString('base64') !== signature)
      throw new NoteError('a signature is base64 of a key id and a signature');
    if (name !== verifier.name || blob.readUInt32BE(0) !== verifier.keyId) continue;
    if (!verify(null, Buffer.from(text, 'utf8'), publicKeyObject(verifier.publicKey), blob.subarray(4)))
      throw new NoteError(`the signature by ${name} does not verify`);
    verified = true;
  }
  if (!verified) throw new NoteError(`the note carries no signature by ${verifier.name}+${hexKeyId(verifier.keyId)}`);
  return text;
}

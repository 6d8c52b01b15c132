import { randomBytes } from 'node:crypto';
import type { Knex } from 'knex';
import { isValidOrigin } from '../../domain/ledger/checkpoint';
import {
  findLedgerKeyRow,
  findLedgerKeySecret,
  insertLedgerKeyOnce,
  sealLedgerKeySecret,
  type LedgerKeyRow,
  type LedgerKeySecretRow,
} from '../../db/ledger-keys';
import { createSecretBox, type SecretKeys } from '../../lib/secret-box';
import {
  createNoteSigner,
  noteKeyId,
  publicKeyOfSeed,
  verifierKeyString,
  type NoteSigner,
  type NoteVerifier,
} from '../../lib/signed-note';

/** The log's public identity: its origin (the checkpoints' first line and the key's name) and its Ed25519 public key. */
export interface LedgerIdentity {
  /** The C2SP key ID, as 8 hex digits. */
  keyId: string;
  origin: string;
  publicKey: Buffer;
  /** `<origin>+<key id>+<base64 key>`: all a verifier needs. */
  verifierKey: string;
  verifier: NoteVerifier;
}

/** The identity and the private key, for those who sign: the sealer and attestations. */
export interface LedgerKey extends LedgerIdentity {
  signer: NoteSigner;
}

const hex8 = (value: number) => value.toString(16).padStart(8, '0');

function toIdentity(row: LedgerKeyRow): LedgerIdentity {
  const verifier = { name: row.origin, publicKey: row.public_key, keyId: Number.parseInt(row.key_id, 16) };
  return {
    keyId: row.key_id,
    origin: row.origin,
    publicKey: row.public_key,
    verifierKey: verifierKeyString(verifier),
    verifier,
  };
}

/** The secret box's associated data: a sealed seed opens only as the seed of its own key. */
const sealingContext = (keyId: string) => `ledger_key:${keyId}`;

/** The seed in the clear (a row not sealed yet), or opened with the configured secrets key. */
function seedOf(secret: LedgerKeySecretRow | undefined, secretKeys: SecretKeys | undefined): Buffer {
  if (!secret) throw new Error('The ledger key has no private key');
  if (secret.private_key) return secret.private_key;
  if (!secretKeys)
    throw new Error(
      `The ledger key ${secret.key_id} is sealed: configure SECRETS_ENCRYPTION_KEY (the key that sealed it) to sign`,
    );
  return Buffer.from(
    createSecretBox(secretKeys).open(secret.sealed_private_key!, sealingContext(secret.key_id)),
    'base64url',
  );
}

async function toLedgerKey(db: Knex, row: LedgerKeyRow, secretKeys: SecretKeys | undefined): Promise<LedgerKey> {
  const seed = seedOf(await findLedgerKeySecret(db, row.key_id), secretKeys);
  return { ...toIdentity(row), signer: createNoteSigner(row.origin, seed) };
}

/**
 * The log's key, created on first start with the configured origin. It is dedicated to the log (a JWT
 * key rotation leaves it alone) and kept for ever, so every checkpoint stays verifiable with it; a later
 * change of the configured origin cannot rename it and is reported instead. With a secrets key configured
 * its seed is sealed (a seed from before sealing is sealed here, at start); without one it stays in the clear.
 */
export async function ensureLedgerKey(
  db: Knex,
  origin: string,
  warn: (message: string) => void = () => undefined,
  secretKeys?: SecretKeys,
): Promise<LedgerKey> {
  if (!isValidOrigin(origin))
    throw new Error(
      `LEDGER_ORIGIN ${JSON.stringify(origin)} is not a valid log origin (non-empty, no spaces, no plus)`,
    );
  const box = secretKeys && createSecretBox(secretKeys);
  const row = await insertLedgerKeyOnce(db, () => {
    const seed = randomBytes(32);
    const publicKey = publicKeyOfSeed(seed);
    const key_id = hex8(noteKeyId(origin, publicKey));
    const secret = box?.canSeal
      ? { private_key: null, sealed_private_key: box.seal(seed.toString('base64url'), sealingContext(key_id)) }
      : { private_key: seed, sealed_private_key: null };
    return { key: { key_id, origin, public_key: publicKey }, secret };
  });
  const secret = await findLedgerKeySecret(db, row.key_id);
  // A seed in the clear, or sealed with a previous secrets key, is sealed with the current one (which opens it: secretKeys holds both).
  if (box?.canSeal && secret && !(secret.sealed_private_key && box.sealedWithCurrent(secret.sealed_private_key))) {
    await sealLedgerKeySecret(
      db,
      row.key_id,
      box.seal(seedOf(secret, secretKeys).toString('base64url'), sealingContext(row.key_id)),
    );
  }
  if (!box?.canSeal) warn('SECRETS_ENCRYPTION_KEY is not configured: the ledger key is stored unsealed');
  if (row.origin !== origin)
    warn(
      `The ledger keeps its origin ${row.origin}: checkpoints signed under it must stay verifiable (LEDGER_ORIGIN is ${origin})`,
    );
  return toLedgerKey(db, row, secretKeys);
}

export async function loadLedgerKey(db: Knex, secretKeys?: SecretKeys): Promise<LedgerKey | undefined> {
  const row = await findLedgerKeyRow(db);
  return row && toLedgerKey(db, row, secretKeys);
}

/** The public side only: no private key is read into memory to serve a proof or the key endpoint. */
export async function loadLedgerIdentity(db: Knex): Promise<LedgerIdentity | undefined> {
  const row = await findLedgerKeyRow(db);
  return row && toIdentity(row);
}

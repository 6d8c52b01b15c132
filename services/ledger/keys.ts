import { randomBytes } from 'node:crypto';
import type { Knex } from 'knex';
import { isValidOrigin } from '../../domain/checkpoint';
import { findLedgerKeyRow, insertLedgerKeyOnce, type LedgerKeyRow } from '../../db/ledger-keys';
import { createNoteSigner, noteKeyId, publicKeyOfSeed, verifierKeyString, type NoteSigner, type NoteVerifier } from '../../lib/signed-note';

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
  return { keyId: row.key_id, origin: row.origin, publicKey: row.public_key, verifierKey: verifierKeyString(verifier), verifier };
}

function toLedgerKey(row: LedgerKeyRow): LedgerKey {
  return { ...toIdentity(row), signer: createNoteSigner(row.origin, row.private_key) };
}

/**
 * The log's key, created on first start with the configured origin. It is dedicated to the log (a JWT
 * key rotation leaves it alone) and kept for ever, so every checkpoint stays verifiable with it; a later
 * change of the configured origin cannot rename it and is reported instead.
 */
export async function ensureLedgerKey(db: Knex, origin: string, warn: (message: string) => void = () => undefined): Promise<LedgerKey> {
  if (!isValidOrigin(origin)) throw new Error(`LEDGER_ORIGIN ${JSON.stringify(origin)} is not a valid log origin (non-empty, no spaces, no plus)`);
  const row = await insertLedgerKeyOnce(db, () => {
    const seed = randomBytes(32);
    const publicKey = publicKeyOfSeed(seed);
    return { key_id: hex8(noteKeyId(origin, publicKey)), origin, public_key: publicKey, private_key: seed };
  });
  if (row.origin !== origin) warn(`The ledger keeps its origin ${row.origin}: checkpoints signed under it must stay verifiable (LEDGER_ORIGIN is ${origin})`);
  return toLedgerKey(row);
}

export async function loadLedgerKey(db: Knex): Promise<LedgerKey | undefined> {
  const row = await findLedgerKeyRow(db);
  return row && toLedgerKey(row);
}

/** The public side only: no private key is read into memory to serve a proof or the key endpoint. */
export async function loadLedgerIdentity(db: Knex): Promise<LedgerIdentity | undefined> {
  const row = await findLedgerKeyRow(db);
  return row && toIdentity(row);
}

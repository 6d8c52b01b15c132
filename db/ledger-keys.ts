import type { Knex } from 'knex';
import { LEDGER_LOCKS } from './ledger-locks';

export interface LedgerKeyRow {
  key_id: string;
  origin: string;
  public_key: Buffer;
  created_at: Date;
}

/** The key's private half, kept apart from the append-only ledger_keys so that it can be sealed. */
export interface LedgerKeySecretRow {
  key_id: string;
  /** The Ed25519 seed in the clear: a row from before sealing, or with no secrets key configured. */
  private_key: Buffer | null;
  /** The seed (base64url) sealed with the secret box, bound to the key id. */
  sealed_private_key: string | null;
}

/** The log's key: the first one ever created (the table is append-only; there is no rotation yet). */
export async function findLedgerKeyRow(db: Knex): Promise<LedgerKeyRow | undefined> {
  return db<LedgerKeyRow>('ledger_keys').orderBy('created_at', 'asc').first();
}

export async function findLedgerKeySecret(db: Knex, keyId: string): Promise<LedgerKeySecretRow | undefined> {
  return db<LedgerKeySecretRow>('ledger_key_secrets').where({ key_id: keyId }).first();
}

/**
 * Inserts the key `create` makes unless one exists, under a lock, so processes starting together agree
 * on one key. Returns the key that is in force.
 */
export async function insertLedgerKeyOnce(
  db: Knex,
  create: () => { key: Omit<LedgerKeyRow, 'created_at'>; secret: Omit<LedgerKeySecretRow, 'key_id'> },
): Promise<LedgerKeyRow> {
  return db.transaction(async (trx) => {
    await trx.raw('select pg_advisory_xact_lock(?)', [LEDGER_LOCKS.key]);
    const existing = await findLedgerKeyRow(trx);
    if (existing) return existing;
    const { key, secret } = create();
    const [row] = await trx('ledger_keys').insert(key).returning<LedgerKeyRow[]>('*');
    await trx('ledger_key_secrets').insert({ ...secret, key_id: key.key_id });
    return row!;
  });
}

/** Stores the seed sealed (again), never in the clear. */
export async function sealLedgerKeySecret(db: Knex, keyId: string, sealed: string): Promise<void> {
  await db('ledger_key_secrets').where({ key_id: keyId }).update({ private_key: null, sealed_private_key: sealed });
}

import type { Knex } from 'knex';
import { LEDGER_LOCKS } from './ledger-locks';

export interface LedgerKeyRow {
  key_id: string;
  origin: string;
  public_key: Buffer;
  private_key: Buffer;
  created_at: Date;
}

/** The log's key: the first one ever created (the table is append-only; there is no rotation yet). */
export async function findLedgerKeyRow(db: Knex): Promise<LedgerKeyRow | undefined> {
  return db<LedgerKeyRow>('ledger_keys').orderBy('created_at', 'asc').first();
}

/**
 * Inserts the key `create` makes unless one exists, under a lock, so processes starting together agree
 * on one key. Returns the key that is in force.
 */
export async function insertLedgerKeyOnce(db: Knex, create: () => Omit<LedgerKeyRow, 'created_at'>): Promise<LedgerKeyRow> {
  return db.transaction(async (trx) => {
    await trx.raw('select pg_advisory_xact_lock(?)', [LEDGER_LOCKS.key]);
    const existing = await findLedgerKeyRow(trx);
    if (existing) return existing;
    const [row] = await trx('ledger_keys').insert(create()).returning<LedgerKeyRow[]>('*');
    return row!;
  });
}

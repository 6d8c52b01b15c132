import type { Knex } from 'knex';
import { LEDGER_LOCKS } from './ledger-locks';

/** Where the log stands: the block appends go into, the last closed and the last sealed block. */
export interface LedgerState {
  open_block: number;
  last_closed_block: number;
  last_sealed_block: number;
  /** Records appended into the open block so far. */
  open_block_leaves: number;
  /** How long ago the oldest record of the open block was appended; null when it has none. */
  open_block_age_ms: number | null;
}

export async function ledgerState(db: Knex): Promise<LedgerState> {
  const { rows } = await db.raw<{
    rows: Array<{ last_closed: number; last_sealed: number; leaves: number; age_ms: number | null }>;
  }>(
    `with closed as (select coalesce(max(block_number), 0) as last_closed from ledger_blocks)
     select closed.last_closed,
            (select coalesce(max(block_number), 0) from ledger_checkpoints) as last_sealed,
            count(e.transaction_id) as leaves,
            extract(epoch from now() - min(e.created_at)) * 1000 as age_ms
     from closed left join ledger_entries e on e.block_number = closed.last_closed + 1
     group by closed.last_closed`,
  );
  const row = rows[0]!;
  return {
    open_block: row.last_closed + 1,
    last_closed_block: row.last_closed,
    last_sealed_block: row.last_sealed,
    open_block_leaves: row.leaves,
    open_block_age_ms: row.age_ms === null ? null : Math.max(0, row.age_ms),
  };
}

export type CloseOutcome =
  { ok: true; block_number: number } | { ok: false; code: 'out_of_order'; last_closed_block: number };

/**
 * Closes a block to appends, once every append that read it as the open block has committed. Waits
 * at most `lockTimeoutMs` for them (appends arriving meanwhile queue behind the closure), so a caller's
 * long transaction delays sealing instead of stalling every append. Closing a closed block is a no-op.
 */
export async function closeBlock(
  db: Knex,
  blockNumber: number,
  options: { lockTimeoutMs: number },
): Promise<CloseOutcome> {
  return db.transaction(async (trx) => {
    await trx.raw(`select set_config('lock_timeout', ?, true)`, [
      `${Math.max(1, Math.round(options.lockTimeoutMs))}ms`,
    ]);
    await trx.raw('select pg_advisory_xact_lock(?)', [LEDGER_LOCKS.append]);
    const last = await trx('ledger_blocks').max<{ max: number | null }[]>({ max: 'block_number' });
    const lastClosed = last[0]?.max ?? 0;
    if (lastClosed >= blockNumber) return { ok: true as const, block_number: blockNumber };
    if (lastClosed !== blockNumber - 1)
      return { ok: false as const, code: 'out_of_order' as const, last_closed_block: lastClosed };
    await trx('ledger_blocks').insert({ block_number: blockNumber });
    return { ok: true as const, block_number: blockNumber };
  });
}

/** What an operator (and the health check) watches: how far sealing is behind appending. */
export interface SealingLag {
  unsealed_leaves: number;
  oldest_unsealed_age_seconds: number | null;
  last_sealed_block: number | null;
  last_sealed_at: string | null;
  tree_size: number;
}

export async function ledgerSealingLag(db: Knex): Promise<SealingLag> {
  const { rows } = await db.raw<{
    rows: Array<{
      block_number: number | null;
      sealed_at: Date | null;
      tree_size: number | null;
      unsealed: number;
      oldest_age: number | null;
    }>;
  }>(
    `with last as (select block_number, sealed_at, tree_size from ledger_checkpoints order by block_number desc limit 1)
     select last.block_number, last.sealed_at, last.tree_size,
            count(e.transaction_id) as unsealed,
            extract(epoch from now() - min(e.created_at)) as oldest_age
     from (select 1) as one
     left join last on true
     left join ledger_entries e on e.block_number > coalesce(last.block_number, 0)
     group by last.block_number, last.sealed_at, last.tree_size`,
  );
  const row = rows[0]!;
  return {
    unsealed_leaves: row.unsealed,
    oldest_unsealed_age_seconds: row.oldest_age === null ? null : Math.max(0, row.oldest_age),
    last_sealed_block: row.block_number,
    last_sealed_at: row.sealed_at ? new Date(row.sealed_at).toISOString() : null,
    tree_size: row.tree_size ?? 0,
  };
}

/**
 * The closed blocks not yet sealed, up to and including `throughBlock`, lowest first: blocks are sealed
 * in order, so they are the ones after the last checkpoint (an index range, however long the log).
 */
export async function unsealedClosedBlocks(db: Knex, throughBlock: number): Promise<number[]> {
  const rows = await db<{ block_number: number }>('ledger_blocks')
    .where('block_number', '>', db('ledger_checkpoints').select(db.raw('coalesce(max(block_number), 0)')))
    .where('block_number', '<=', throughBlock)
    .orderBy('block_number', 'asc')
    .select('block_number');
  return rows.map((row) => row.block_number);
}

export interface CheckpointRow {
  block_number: number;
  tree_size: number;
  root_hash: Buffer;
  checkpoint: string;
  key_id: string;
  sealed_at: Date;
}

export async function findCheckpoint(db: Knex, blockNumber: number): Promise<CheckpointRow | undefined> {
  return db<CheckpointRow>('ledger_checkpoints').where({ block_number: blockNumber }).first();
}

export async function latestCheckpoint(db: Knex): Promise<CheckpointRow | undefined> {
  return db<CheckpointRow>('ledger_checkpoints').orderBy('block_number', 'desc').first();
}

/** The first checkpoint whose tree holds `treeSize` leaves (blocks whose appends all rolled back share a size). */
export async function checkpointWithTreeSize(db: Knex, treeSize: number): Promise<CheckpointRow | undefined> {
  return db<CheckpointRow>('ledger_checkpoints').where({ tree_size: treeSize }).orderBy('block_number', 'asc').first();
}

export async function listCheckpoints(
  db: Knex,
  options: { afterBlock: number; limit: number },
): Promise<CheckpointRow[]> {
  return db<CheckpointRow>('ledger_checkpoints')
    .where('block_number', '>', options.afterBlock)
    .orderBy('block_number', 'asc')
    .limit(options.limit);
}

/** The sealing writes, in the sealer's transaction. */
export const sealWrites = {
  async lock(trx: Knex.Transaction): Promise<void> {
    await trx.raw('select pg_advisory_xact_lock(?)', [LEDGER_LOCKS.seal]);
  },

  async isClosed(trx: Knex.Transaction, blockNumber: number): Promise<boolean> {
    return (await trx('ledger_blocks').where({ block_number: blockNumber }).first()) !== undefined;
  },

  /** Gives the block's records the next leaf indexes, in order of arrival; returns their leaf hashes in that order. */
  async assignLeaves(trx: Knex.Transaction, blockNumber: number, firstLeafIndex: number): Promise<Buffer[]> {
    await trx.raw(
      `insert into ledger_leaves (leaf_index, transaction_id, block_number)
       select ? + row_number() over (order by seq) - 1, transaction_id, block_number
       from ledger_entries where block_number = ? order by seq`,
      [firstLeafIndex, blockNumber],
    );
    const rows: Array<{ leaf_hash: Buffer }> = await trx('ledger_entries')
      .where({ block_number: blockNumber })
      .orderBy('seq', 'asc')
      .select('leaf_hash');
    return rows.map((row) => row.leaf_hash);
  },

  async insertNodes(
    trx: Knex.Transaction,
    nodes: ReadonlyArray<{ level: number; index: number; hash: Uint8Array }>,
  ): Promise<void> {
    const CHUNK = 20_000;
    for (let start = 0; start < nodes.length; start += CHUNK) {
      const chunk = nodes.slice(start, start + CHUNK);
      await trx.raw(
        `insert into ledger_nodes (level, idx, hash)
         select * from unnest(?::smallint[], ?::bigint[], ?::bytea[])`,
        [chunk.map((node) => node.level), chunk.map((node) => node.index), chunk.map((node) => Buffer.from(node.hash))],
      );
    }
  },

  async insertCheckpoint(trx: Knex.Transaction, row: Omit<CheckpointRow, 'sealed_at'>): Promise<CheckpointRow> {
    const [inserted] = await trx<CheckpointRow>('ledger_checkpoints').insert(row).returning('*');
    return inserted!;
  },
};

/** Hashes of stored subtrees, by "level:index". */
export async function findNodes(
  db: Knex,
  ids: ReadonlyArray<{ level: number; index: number }>,
): Promise<Map<string, Buffer>> {
  if (ids.length === 0) return new Map();
  const { rows } = await db.raw<{ rows: Array<{ level: number; idx: number; hash: Buffer }> }>(
    `select n.level, n.idx, n.hash from ledger_nodes n
     join unnest(?::smallint[], ?::bigint[]) as wanted(level, idx) on n.level = wanted.level and n.idx = wanted.idx`,
    [ids.map((id) => id.level), ids.map((id) => id.index)],
  );
  return new Map(rows.map((row) => [`${row.level}:${row.idx}`, row.hash]));
}

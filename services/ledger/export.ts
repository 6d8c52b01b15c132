import type { Knex } from 'knex';
import { listCheckpoints } from '../../db/ledger-blocks';
import { EXPORT_FORMAT, type ExportLine } from './formats';
import { loadLedgerIdentity } from './keys';
import { verifyExport, type VerifyReport } from './verify';

const PAGE = 2000;

/**
 * The sealed log as JSON lines, for `npm run verify`: a header, then each block's leaves in index order
 * followed by its signed checkpoint, then an end line with the totals. Streams page by page, so a log of millions of leaves needs no more
 * memory than one page.
 */
export async function* exportLedger(db: Knex): AsyncGenerator<ExportLine> {
  const key = await loadLedgerIdentity(db);
  if (!key) throw new Error('the ledger has no key yet: start the service once');
  yield { format: EXPORT_FORMAT, origin: key.origin, verifier_key: key.verifierKey };
  let afterBlock = 0;
  let nextLeaf = 0;
  let count = 0;
  for (;;) {
    const checkpoints = await listCheckpoints(db, { afterBlock, limit: PAGE });
    if (checkpoints.length === 0) {
      yield { end: { tree_size: nextLeaf, checkpoints: count } };
      return;
    }
    for (const checkpoint of checkpoints) {
      while (nextLeaf < checkpoint.tree_size) {
        const leaves: Array<{ leaf_index: number; transaction_id: string; block_number: number; body: string }> = await db('ledger_leaves as l')
          .join('ledger_entries as e', 'e.transaction_id', 'l.transaction_id')
          .where('l.leaf_index', '>=', nextLeaf)
          .where('l.leaf_index', '<', checkpoint.tree_size)
          .orderBy('l.leaf_index', 'asc')
          .limit(PAGE)
          .select('l.leaf_index', 'l.transaction_id', 'l.block_number', 'e.body');
        if (leaves.length === 0) throw new Error(`leaf ${nextLeaf} of checkpoint ${checkpoint.block_number} is missing`);
        for (const leaf of leaves) {
          yield { leaf: { index: leaf.leaf_index, transaction_id: leaf.transaction_id, block_number: leaf.block_number, body: leaf.body } };
          nextLeaf = leaf.leaf_index + 1;
        }
      }
      yield { checkpoint: { block_number: checkpoint.block_number, tree_size: checkpoint.tree_size, note: checkpoint.checkpoint } };
      afterBlock = checkpoint.block_number;
      count += 1;
    }
  }
}

async function* asJsonLines(lines: AsyncIterable<ExportLine>): AsyncGenerator<string> {
  for await (const line of lines) yield JSON.stringify(line);
}

/** The offline verification of the stored log, run against the database: what an auditor would find. */
export async function verifyStoredLedger(db: Knex, options: { trusted?: string[] } = {}): Promise<VerifyReport> {
  const key = await loadLedgerIdentity(db);
  if (!key) return { ok: false, verified: [], problems: ['the ledger has no key yet'] };
  return verifyExport(asJsonLines(exportLedger(db)), key.verifier, options);
}

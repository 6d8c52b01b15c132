import type { Knex } from 'knex';
import { listCheckpoints } from '../../db/ledger-blocks';
import { EXPORT_FORMAT, type ExportLine } from './formats';
import { loadLedgerIdentity } from './keys';
import type { VerifyReport } from './verify';
import { verifyExport } from './verify-export';

const PAGE = 2000;

/**
 * The sealed log as JSON lines, for `npm run verify`: a header, then each block's leaves in index order
 * followed by its signed checkpoint, then an end line with the totals. Streams page by page, so a log of
 * millions of leaves needs no more memory than one page. An organization's export (`organizationId`) holds
 * only its own records' bodies: another organization's record is its leaf hash, which is all the verifier
 * needs to recompute every checkpoint's tree, and says nothing of the record. Without one (an operator's
 * `npm run ledger:export`), every body.
 */
export async function* exportLedger(db: Knex, options: { organizationId?: string } = {}): AsyncGenerator<ExportLine> {
  const key = await loadLedgerIdentity(db);
  if (!key) throw new Error('the ledger has no key yet: start the service once');
  const { organizationId } = options;
  yield {
    format: EXPORT_FORMAT,
    origin: key.origin,
    verifier_key: key.verifierKey,
    ...(organizationId ? { organization_id: organizationId } : {}),
  };
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
        const leaves = await leavesFrom(db, nextLeaf, checkpoint.tree_size);
        if (leaves.length === 0)
          throw new Error(`leaf ${nextLeaf} of checkpoint ${checkpoint.block_number} is missing`);
        for (const leaf of leaves) {
          yield organizationId === undefined || leaf.organization_id === organizationId
            ? {
                leaf: {
                  index: leaf.leaf_index,
                  transaction_id: leaf.transaction_id,
                  block_number: leaf.block_number,
                  body: leaf.body,
                },
              }
            : {
                withheld_leaf: {
                  index: leaf.leaf_index,
                  block_number: leaf.block_number,
                  leaf_hash: leaf.leaf_hash.toString('base64'),
                },
              };
          nextLeaf = leaf.leaf_index + 1;
        }
      }
      yield {
        checkpoint: {
          block_number: checkpoint.block_number,
          tree_size: checkpoint.tree_size,
          note: checkpoint.checkpoint,
        },
      };
      afterBlock = checkpoint.block_number;
      count += 1;
    }
  }
}

/** A page of the leaves from index `from` up to (not including) `to`, in order. */
function leavesFrom(
  db: Knex,
  from: number,
  to: number,
): Promise<
  Array<{
    leaf_index: number;
    transaction_id: string;
    block_number: number;
    body: string;
    leaf_hash: Buffer;
    organization_id: string;
  }>
> {
  return (
    db('ledger_leaves as l')
      .join('ledger_entries as e', 'e.transaction_id', 'l.transaction_id')
      .where('l.leaf_index', '>=', from)
      .where('l.leaf_index', '<', to)
      .orderBy('l.leaf_index', 'asc')
      .limit(PAGE)
      .select('l.leaf_index', 'l.transaction_id', 'l.block_number', 'e.body', 'e.organization_id')
      // Hashed from the body as it is stored now, not read from the column: an edit to any record then shows in every organization's export.
      .select(db.raw("sha256('\\x00'::bytea || convert_to(e.body, 'UTF8')) as leaf_hash"))
  );
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

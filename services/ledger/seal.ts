import type { Knex } from 'knex';
import { checkpointText, parseCheckpointText } from '../../domain/ledger/checkpoint';
import { appendLeaves, bytesEqual, edgeNodeIds, nodeKey, rootOf, type TreeEdge } from '../../domain/ledger/merkle';
import {
  closeBlock,
  findCheckpoint,
  findNodes,
  latestCheckpoint,
  ledgerState,
  sealWrites,
  unsealedClosedBlocks,
  type CheckpointRow,
} from '../../db/ledger-blocks';
import type { LedgerKey } from './keys';
import { rfc6962 } from './rfc6962';
import { openNote, signNote } from '../../lib/signed-note';

export interface SealedBlock {
  block_number: number;
  tree_size: number;
  /** Base64, as in the checkpoint. */
  root_hash: string;
  checkpoint: string;
  sealed_at: string;
}

export class SealError extends Error {
  override name = 'SealError';
}

function toSealed(row: CheckpointRow): SealedBlock {
  return {
    block_number: row.block_number,
    tree_size: row.tree_size,
    root_hash: row.root_hash.toString('base64'),
    checkpoint: row.checkpoint,
    sealed_at: new Date(row.sealed_at).toISOString(),
  };
}

/** The tree as the last checkpoint signed it, from the stored subtrees on its right edge. */
async function edgeAt(trx: Knex.Transaction, previous: CheckpointRow | undefined, key: LedgerKey): Promise<TreeEdge> {
  if (!previous) return { size: 0, nodes: [] };
  const ids = edgeNodeIds(previous.tree_size);
  const stored = await findNodes(trx, ids);
  const edge: TreeEdge = {
    size: previous.tree_size,
    nodes: ids.map((id) => {
      const hash = stored.get(nodeKey(id));
      if (!hash) throw new SealError(`subtree ${nodeKey(id)} of the tree of ${previous.tree_size} leaves is missing`);
      return { id, hash };
    }),
  };
  // Never sign a tree that does not extend the one signed before (C2SP tlog-checkpoint): compare with the
  // root in the signed note, not with a column that could have been edited along with the subtrees.
  const signed = parseCheckpointText(openNote(previous.checkpoint, key.verifier));
  if (
    !signed ||
    signed.treeSize !== previous.tree_size ||
    !bytesEqual(rootOf(rfc6962, edge), Buffer.from(signed.rootHash, 'base64'))
  ) {
    throw new SealError(
      `the stored tree no longer matches checkpoint ${previous.block_number}: refusing to sign on top of it`,
    );
  }
  return edge;
}

/**
 * Seals a closed block: gives its records the next leaf indexes in order of arrival, stores every
 * subtree they complete, and signs a checkpoint of the new tree, all in one transaction. Idempotent: a
 * sealed block returns its checkpoint, so a sealer that died mid-seal is simply run again.
 */
export async function sealBlock(db: Knex, blockNumber: number, key: LedgerKey): Promise<SealedBlock> {
  return db.transaction(async (trx) => {
    await sealWrites.lock(trx);
    const existing = await findCheckpoint(trx, blockNumber);
    if (existing) return toSealed(existing);
    if (!(await sealWrites.isClosed(trx, blockNumber))) throw new SealError(`block ${blockNumber} is still open`);
    const previous = await latestCheckpoint(trx);
    if ((previous?.block_number ?? 0) !== blockNumber - 1)
      throw new SealError(`block ${blockNumber} cannot be sealed before block ${(previous?.block_number ?? 0) + 1}`);

    const edge = await edgeAt(trx, previous, key);
    const leafHashes = await sealWrites.assignLeaves(trx, blockNumber, edge.size);
    const grown = appendLeaves(rfc6962, edge, leafHashes);
    await sealWrites.insertNodes(
      trx,
      grown.completed.map((node) => ({ ...node.id, hash: node.hash })),
    );
    const root = Buffer.from(rootOf(rfc6962, grown.edge));
    const checkpoint = signNote(
      checkpointText({ origin: key.origin, treeSize: grown.edge.size, rootHash: root.toString('base64') }),
      key.signer,
    );
    return toSealed(
      await sealWrites.insertCheckpoint(trx, {
        block_number: blockNumber,
        tree_size: grown.edge.size,
        root_hash: root,
        checkpoint,
        key_id: key.keyId,
      }),
    );
  });
}

/** Seals every closed block up to `throughBlock`, in order; reports each as it is sealed. */
export async function sealClosedBlocks(
  db: Knex,
  throughBlock: number,
  key: LedgerKey,
  onSealed: (block: SealedBlock) => void = () => undefined,
): Promise<SealedBlock[]> {
  const sealed: SealedBlock[] = [];
  for (const blockNumber of await unsealedClosedBlocks(db, throughBlock)) {
    const block = await sealBlock(db, blockNumber, key);
    sealed.push(block);
    onSealed(block);
  }
  return sealed;
}

/** Closes the open block, if it holds records, and seals every closed block: what one sealer cycle does. */
export async function sealOpenBlock(
  db: Knex,
  key: LedgerKey,
  options: { lockTimeoutMs: number },
): Promise<SealedBlock[]> {
  const state = await ledgerState(db);
  let through = state.last_closed_block;
  if (state.open_block_leaves > 0) {
    const closed = await closeBlock(db, state.open_block, options);
    if (!closed.ok)
      throw new SealError(`block ${state.open_block} cannot be closed after block ${closed.last_closed_block}`);
    through = state.open_block;
  }
  return sealClosedBlocks(db, through, key);
}

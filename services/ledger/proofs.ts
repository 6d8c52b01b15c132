import type { Knex } from 'knex';
import {
  consistencyRanges,
  inclusionRanges,
  nodeKey,
  nodesFor,
  rangeHash,
  type LeafRange,
} from '../../domain/ledger/merkle';
import { checkpointWithTreeSize, findNodes, latestCheckpoint, type CheckpointRow } from '../../db/ledger-blocks';
import { findProvenanceRecord, type ProvenanceRecord } from '../../db/ledger';
import { loadLedgerIdentity } from './keys';
import {
  CONSISTENCY_BUNDLE_FORMAT,
  INCLUSION_BUNDLE_FORMAT,
  type ConsistencyBundle,
  type InclusionBundle,
} from './formats';
import { rfc6962 } from './rfc6962';

/** The hashes of these ranges from the stored subtrees: one query, O(log n) rows. */
async function hashesOf(db: Knex, ranges: LeafRange[]): Promise<Buffer[]> {
  const stored = await findNodes(db, nodesFor(ranges));
  return ranges.map((range) => Buffer.from(rangeHash(rfc6962, range, (id) => stored.get(nodeKey(id)))));
}

/** The inclusion proof of a sealed leaf in the tree of `treeSize` leaves (RFC 9162 §2.1.3.1). */
export async function inclusionProof(db: Knex, leafIndex: number, treeSize: number): Promise<Buffer[]> {
  return hashesOf(db, inclusionRanges(leafIndex, treeSize));
}

/** The consistency proof from the tree of `size1` leaves to that of `size2` (RFC 9162 §2.1.4.1). */
export async function consistencyProof(db: Knex, size1: number, size2: number): Promise<Buffer[]> {
  return hashesOf(db, consistencyRanges(size1, size2));
}

export type BundleOutcome<T> =
  | { ok: true; bundle: T }
  | { ok: false; code: 'not_sealed'; detail: string; transaction_id: string; block_number: number }
  | { ok: false; code: 'not_found' | 'no_checkpoint' | 'tree_size_unknown' | 'tree_size_too_small'; detail: string };

async function checkpointFor(db: Knex, treeSize: number | undefined): Promise<CheckpointRow | undefined> {
  return treeSize === undefined ? latestCheckpoint(db) : checkpointWithTreeSize(db, treeSize);
}

/**
 * An inclusion bundle for records against one checkpoint: the latest one, or the one of `treeSize`
 * (to prove against a checkpoint the caller already holds).
 */
export async function inclusionBundle(
  db: Knex,
  records: ProvenanceRecord[],
  options: { treeSize?: number } = {},
): Promise<BundleOutcome<InclusionBundle>> {
  const unsealed = records.find((record) => record.leaf_index === null);
  if (unsealed) {
    const { transaction_id, block_number } = unsealed.anchor;
    return {
      ok: false,
      code: 'not_sealed',
      detail: `record ${transaction_id} is not sealed yet (block ${block_number})`,
      transaction_id,
      block_number,
    };
  }
  const [checkpoint, key] = await Promise.all([checkpointFor(db, options.treeSize), loadLedgerIdentity(db)]);
  if (!checkpoint || !key) {
    return options.treeSize === undefined
      ? { ok: false, code: 'no_checkpoint', detail: 'the log has no checkpoint yet' }
      : { ok: false, code: 'tree_size_unknown', detail: `no checkpoint has a tree of ${options.treeSize} leaves` };
  }
  const outside = records.find((record) => record.leaf_index! >= checkpoint.tree_size);
  if (outside)
    return {
      ok: false,
      code: 'tree_size_too_small',
      detail: `leaf ${outside.leaf_index!} is not in the tree of ${checkpoint.tree_size} leaves`,
    };
  const proofs = await Promise.all(
    records.map((record) => inclusionProof(db, record.leaf_index!, checkpoint.tree_size)),
  );
  return {
    ok: true,
    bundle: {
      format: INCLUSION_BUNDLE_FORMAT,
      origin: key.origin,
      verifier_key: key.verifierKey,
      checkpoint: checkpoint.checkpoint,
      block_number: checkpoint.block_number,
      tree_size: checkpoint.tree_size,
      root_hash: checkpoint.root_hash.toString('base64'),
      records: records.map((record, i) => ({
        transaction_id: record.anchor.transaction_id,
        subject_id: record.entry.subject_id,
        step_id: record.entry.step_id,
        block_number: record.anchor.block_number,
        leaf_index: record.leaf_index!,
        body: record.body,
        leaf_hash: Buffer.from(record.hash, 'hex').toString('base64'),
        inclusion_proof: proofs[i]!.map((hash) => hash.toString('base64')),
      })),
    },
  };
}

export async function recordBundle(
  db: Knex,
  transactionId: string,
  options: { treeSize?: number; organizationId?: string } = {},
): Promise<BundleOutcome<InclusionBundle>> {
  const record = await findProvenanceRecord(db, transactionId, options.organizationId);
  if (!record) return { ok: false, code: 'not_found', detail: `no record ${transactionId}` };
  return inclusionBundle(db, [record], options);
}

/** A consistency bundle between two checkpointed tree sizes (the second defaults to the latest). */
export async function consistencyBundle(
  db: Knex,
  firstSize: number,
  secondSize?: number,
): Promise<BundleOutcome<ConsistencyBundle>> {
  const [second, key] = await Promise.all([checkpointFor(db, secondSize), loadLedgerIdentity(db)]);
  if (!second || !key)
    return {
      ok: false,
      code: secondSize === undefined ? 'no_checkpoint' : 'tree_size_unknown',
      detail:
        secondSize === undefined ? 'the log has no checkpoint yet' : `no checkpoint has a tree of ${secondSize} leaves`,
    };
  if (firstSize > second.tree_size)
    return {
      ok: false,
      code: 'tree_size_too_small',
      detail: `the tree of ${second.tree_size} leaves cannot extend one of ${firstSize}`,
    };
  const first = firstSize === 0 ? undefined : await checkpointWithTreeSize(db, firstSize);
  if (firstSize !== 0 && !first)
    return { ok: false, code: 'tree_size_unknown', detail: `no checkpoint has a tree of ${firstSize} leaves` };
  const proof = await consistencyProof(db, firstSize, second.tree_size);
  return {
    ok: true,
    bundle: {
      format: CONSISTENCY_BUNDLE_FORMAT,
      origin: key.origin,
      verifier_key: key.verifierKey,
      first: { tree_size: firstSize, block_number: first?.block_number ?? null, checkpoint: first?.checkpoint ?? null },
      second: { tree_size: second.tree_size, block_number: second.block_number, checkpoint: second.checkpoint },
      proof: proof.map((hash) => hash.toString('base64')),
    },
  };
}

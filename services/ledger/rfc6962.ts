import { createHash } from 'node:crypto';
import type { TreeHasher } from '../../domain/ledger/merkle';

const LEAF_PREFIX = Buffer.from([0x00]);
const NODE_PREFIX = Buffer.from([0x01]);

/** RFC 6962 §2.1 with SHA-256: distinct prefixes for leaves and nodes, so a node can never pass for a leaf. */
export const rfc6962: TreeHasher = {
  hashLeaf: (data) => createHash('sha256').update(LEAF_PREFIX).update(data).digest(),
  hashChildren: (left, right) => createHash('sha256').update(NODE_PREFIX).update(left).update(right).digest(),
  emptyRoot: () => createHash('sha256').digest(),
};

/** The leaf hash of a record: its canonical JSON body as UTF-8. Postgres computes the same at append. */
export function leafHashOfBody(body: string): Buffer {
  return rfc6962.hashLeaf(Buffer.from(body, 'utf8')) as Buffer;
}

/**
 * Merkle tree math of RFC 9162 (RFC 6962's log): which subtrees make an inclusion or consistency proof,
 * how a proof is verified, and how a tree grows leaf by leaf. Pure: the hash functions are passed in
 * (services/ledger/rfc6962.ts gives SHA-256 with the 0x00 / 0x01 prefixes), and every size and index is a
 * safe integer, which bounds a log at 2^53 leaves.
 */

export interface TreeHasher {
  /** SHA-256(0x00 || data). */
  hashLeaf(data: Uint8Array): Uint8Array;
  /** SHA-256(0x01 || left || right). */
  hashChildren(left: Uint8Array, right: Uint8Array): Uint8Array;
  /** The root of the empty tree, SHA-256 of nothing. */
  emptyRoot(): Uint8Array;
}

export const HASH_SIZE = 32;

/** A perfect subtree: the 2^level leaves from index·2^level on. Level 0 is a leaf. */
export interface NodeId {
  level: number;
  index: number;
}

/** The leaves [start, end). */
export interface LeafRange {
  start: number;
  end: number;
}

export interface HashedNode {
  id: NodeId;
  hash: Uint8Array;
}

export function nodeKey(id: NodeId): string {
  return `${id.level}:${id.index}`;
}

/** The largest power of two at most n (n ≥ 1). */
function powerOfTwoAtMost(n: number): number {
  let power = 1;
  while (power * 2 <= n) power *= 2;
  return power;
}

/** The largest power of two strictly below n (n ≥ 2): where RFC 9162 splits a tree of n leaves. */
function splitPoint(n: number): number {
  return powerOfTwoAtMost(n - 1);
}

const isIndex = (value: number) => Number.isSafeInteger(value) && value >= 0;

/**
 * The perfect subtrees that make up [start, end), left to right and largest first, for a range that
 * starts where a subtree of its size could start (every range a proof or a tree prefix names does).
 */
export function perfectSubtrees(range: LeafRange): NodeId[] {
  const nodes: NodeId[] = [];
  let position = range.start;
  let remaining = range.end - range.start;
  while (remaining > 0) {
    const size = powerOfTwoAtMost(remaining);
    if (position % size !== 0) throw new RangeError(`[${range.start}, ${range.end}) is not aligned to its subtrees`);
    let level = 0;
    while (2 ** level < size) level += 1;
    nodes.push({ level, index: position / size });
    position += size;
    remaining -= size;
  }
  return nodes;
}

/**
 * The subtrees whose hashes form the inclusion proof of leaf `index` in a tree of `size` leaves, from
 * the leaf's sibling up to the root's other child: PATH(m, D[n]) of RFC 9162 §2.1.3.1.
 */
export function inclusionRanges(index: number, size: number): LeafRange[] {
  if (!isIndex(index) || !isIndex(size) || index >= size)
    throw new RangeError(`leaf ${index} is not in a tree of ${size} leaves`);
  const fromRoot: LeafRange[] = [];
  let start = 0;
  let end = size;
  while (end - start > 1) {
    const k = splitPoint(end - start);
    if (index < start + k) {
      fromRoot.push({ start: start + k, end });
      end = start + k;
    } else {
      fromRoot.push({ start, end: start + k });
      start += k;
    }
  }
  return fromRoot.reverse();
}

/**
 * The subtrees whose hashes prove that the tree of `size1` leaves is a prefix of the tree of `size2`
 * leaves: PROOF(m, D[n]) of RFC 9162 §2.1.4.1. Empty when the sizes are equal or the first is empty.
 */
export function consistencyRanges(size1: number, size2: number): LeafRange[] {
  if (!isIndex(size1) || !isIndex(size2) || size1 > size2)
    throw new RangeError(`no consistency proof from ${size1} to ${size2} leaves`);
  if (size1 === 0 || size1 === size2) return [];
  const appended: LeafRange[] = [];
  let start = 0;
  let end = size2;
  let m = size1;
  let knownToClient = true;
  for (;;) {
    const n = end - start;
    if (m === n) {
      // The subtree the old tree ends with; the client knows it already when it is the old root.
      return [...(knownToClient ? [] : [{ start, end }]), ...appended.reverse()];
    }
    const k = splitPoint(n);
    if (m <= k) {
      appended.push({ start: start + k, end });
      end = start + k;
    } else {
      appended.push({ start, end: start + k });
      m -= k;
      start += k;
      knownToClient = false;
    }
  }
}

/** Every stored subtree needed to compute the hashes of these ranges, once each. */
export function nodesFor(ranges: readonly LeafRange[]): NodeId[] {
  const seen = new Map<string, NodeId>();
  for (const range of ranges) for (const node of perfectSubtrees(range)) seen.set(nodeKey(node), node);
  return [...seen.values()];
}

/**
 * MTH of a range from the hashes of its perfect subtrees: a range that is not itself perfect sits on
 * the tree's right edge, where RFC 9162 splits off the largest perfect subtree first.
 */
export function rangeHash(
  hasher: TreeHasher,
  range: LeafRange,
  lookup: (id: NodeId) => Uint8Array | undefined,
): Uint8Array {
  const nodes = perfectSubtrees(range);
  const hashOf = (id: NodeId) => {
    const hash = lookup(id);
    if (!hash) throw new Error(`node ${nodeKey(id)} of [${range.start}, ${range.end}) is missing`);
    return hash;
  };
  if (nodes.length === 0) return hasher.emptyRoot();
  let hash = hashOf(nodes[nodes.length - 1]!);
  for (let i = nodes.length - 2; i >= 0; i -= 1) hash = hasher.hashChildren(hashOf(nodes[i]!), hash);
  return hash;
}

export function bytesEqual(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  let difference = 0;
  for (let i = 0; i < a.length; i += 1) difference |= a[i]! ^ b[i]!;
  return difference === 0;
}

const wellFormed = (hashes: readonly Uint8Array[]) => hashes.every((hash) => hash.length === HASH_SIZE);
const isOdd = (value: number) => value % 2 === 1;
const half = (value: number) => Math.floor(value / 2);

/** Where RFC 9162's verification algorithms stand: fn the node's index and sn the last index, at one level. */
interface Walk {
  fn: number;
  sn: number;
}

function climb(walk: Walk): void {
  walk.fn = half(walk.fn);
  walk.sn = half(walk.sn);
}

/** Climbs past the levels where the node is a left child with nothing to its right: they add no hash. */
function climbPastRightEdge(walk: Walk): void {
  while (!isOdd(walk.fn) && walk.fn !== 0) climb(walk);
}

/** RFC 9162 §2.1.3.2: whether `proof` shows the leaf with this hash at `index` in the tree with this root. */
export function verifyInclusion(
  hasher: TreeHasher,
  index: number,
  size: number,
  leafHash: Uint8Array,
  proof: readonly Uint8Array[],
  root: Uint8Array,
): boolean {
  if (!isIndex(index) || !isIndex(size) || index >= size) return false;
  if (!wellFormed([leafHash, root, ...proof])) return false;
  const walk: Walk = { fn: index, sn: size - 1 };
  let r = leafHash;
  for (const p of proof) {
    if (walk.sn === 0) return false;
    if (isOdd(walk.fn) || walk.fn === walk.sn) {
      r = hasher.hashChildren(p, r);
      climbPastRightEdge(walk);
    } else {
      r = hasher.hashChildren(r, p);
    }
    climb(walk);
  }
  return walk.sn === 0 && bytesEqual(r, root);
}

/** RFC 9162 §2.1.4.2: whether `proof` shows the tree of size1 leaves (root1) is a prefix of the tree of size2 leaves (root2). */
export function verifyConsistency(
  hasher: TreeHasher,
  size1: number,
  size2: number,
  proof: readonly Uint8Array[],
  root1: Uint8Array,
  root2: Uint8Array,
): boolean {
  if (!isIndex(size1) || !isIndex(size2) || size1 > size2) return false;
  if (!wellFormed(proof)) return false;
  if (size1 === size2) return proof.length === 0 && bytesEqual(root1, root2);
  // Every tree extends the empty one.
  if (size1 === 0) return proof.length === 0;
  if (proof.length === 0 || !wellFormed([root1, root2])) return false;
  const path = size1 === powerOfTwoAtMost(size1) ? [root1, ...proof] : [...proof];
  const walk: Walk = { fn: size1 - 1, sn: size2 - 1 };
  while (isOdd(walk.fn)) climb(walk);
  let fr = path[0]!;
  let sr = path[0]!;
  for (const c of path.slice(1)) {
    if (walk.sn === 0) return false;
    if (isOdd(walk.fn) || walk.fn === walk.sn) {
      fr = hasher.hashChildren(c, fr);
      sr = hasher.hashChildren(c, sr);
      climbPastRightEdge(walk);
    } else {
      sr = hasher.hashChildren(sr, c);
    }
    climb(walk);
  }
  return walk.sn === 0 && bytesEqual(fr, root1) && bytesEqual(sr, root2);
}

/**
 * The right edge of a tree: the perfect subtrees that cover its leaves [0, size), largest first. It is
 * all a sealer needs to keep from one block to the next to extend the tree and compute its root.
 */
export interface TreeEdge {
  size: number;
  nodes: HashedNode[];
}

export const EMPTY_EDGE: TreeEdge = { size: 0, nodes: [] };

/** The subtrees a tree's edge is made of, to load it from storage. */
export function edgeNodeIds(size: number): NodeId[] {
  return perfectSubtrees({ start: 0, end: size });
}

/**
 * Appends leaves to the tree: returns the new edge and every perfect subtree the leaves completed
 * (the leaves themselves included), which is what storage needs to answer proofs in O(log n) reads.
 */
export function appendLeaves(
  hasher: TreeHasher,
  edge: TreeEdge,
  leafHashes: readonly Uint8Array[],
): { edge: TreeEdge; completed: HashedNode[] } {
  const stack = [...edge.nodes];
  const completed: HashedNode[] = [];
  let size = edge.size;
  for (const leafHash of leafHashes) {
    let node: HashedNode = { id: { level: 0, index: size }, hash: leafHash };
    completed.push(node);
    size += 1;
    while (stack.length > 0 && stack[stack.length - 1]!.id.level === node.id.level) {
      const left = stack.pop()!;
      node = {
        id: { level: node.id.level + 1, index: half(node.id.index) },
        hash: hasher.hashChildren(left.hash, node.hash),
      };
      completed.push(node);
    }
    stack.push(node);
  }
  return { edge: { size, nodes: stack }, completed };
}

/** MTH of the whole tree from its edge. */
export function rootOf(hasher: TreeHasher, edge: TreeEdge): Uint8Array {
  if (edge.nodes.length === 0) return hasher.emptyRoot();
  let hash = edge.nodes[edge.nodes.length - 1]!.hash;
  for (let i = edge.nodes.length - 2; i >= 0; i -= 1) hash = hasher.hashChildren(edge.nodes[i]!.hash, hash);
  return hash;
}

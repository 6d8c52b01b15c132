import { readFileSync } from 'node:fs';
import path from 'node:path';
import {
  appendLeaves,
  consistencyRanges,
  EMPTY_EDGE,
  inclusionRanges,
  nodeKey,
  nodesFor,
  rangeHash,
  rootOf,
  verifyConsistency,
  verifyInclusion,
  type NodeId,
} from '../../../domain/ledger/merkle';
import { rfc6962 } from '../../../services/ledger/rfc6962';

const hex = (value: string) => Buffer.from(value, 'hex');
const b64 = (value: string) => Buffer.from(value, 'base64');

/** transparency-dev/merkle's reference vectors; see the file's source, licence and note. */
const fixture = JSON.parse(
  readFileSync(path.join(__dirname, '../../fixtures/transparency-dev-merkle.json'), 'utf8'),
) as {
  inclusion: Array<{
    file: string;
    leafIdx: string;
    treeSize: string;
    root: string;
    leafHash: string;
    proof: string[];
    wantErr: boolean;
  }>;
  consistency: Array<{
    file: string;
    size1: string;
    size2: string;
    root1: string;
    root2: string;
    proof: string[];
    wantErr: boolean;
  }>;
};
/** Sizes beyond 2^53 (a wrapped leafIdx - 1) stay unsafe integers, which the verifier must refuse. */
const integer = (value: string) => Number(BigInt(value));

// The eight leaves and the roots of their prefixes, from transparency-dev/merkle proof/verify_test.go.
const LEAVES = ['', '00', '10', '2021', '3031', '40414243', '5051525354555657', '606162636465666768696a6b6c6d6e6f'].map(
  hex,
);
const ROOTS = [
  '6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d',
  'fac54203e7cc696cf0dfcb42c92a1d9dbaf70ad9e621f4bd8d98662f00e3c125',
  'aeb6bcfe274b70a14fb067a5e5578264db0fa9b51af5e0ba159158f329e06e77',
  'd37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7',
  '4e3bbb1f7b478dcfe71fb631631519a3bca12c9aefca1612bfce4c13a86264d4',
  '76e67dadbcdf1e10e1b74ddc608abd2f98dfb16fbce75277b5232a127f2087ef',
  'ddb89be403809e325750d3d263cd78929c2942b7942a34b77e122c9594a74c8c',
  '5dc9da79a70659a9ad559cb701ded9a2ab9d823aad2f4960cfe370eff4604328',
].map(hex);

/** A tree of the given leaf hashes with every completed subtree stored, as the sealer stores them. */
function buildTree(leafHashes: Uint8Array[]) {
  const { edge, completed } = appendLeaves(rfc6962, EMPTY_EDGE, leafHashes);
  const nodes = new Map(completed.map((node) => [nodeKey(node.id), node.hash]));
  const lookup = (id: NodeId) => nodes.get(nodeKey(id));
  return {
    root: rootOf(rfc6962, edge),
    inclusion: (index: number, size: number) =>
      inclusionRanges(index, size).map((range) => rangeHash(rfc6962, range, lookup)),
    consistency: (size1: number, size2: number) =>
      consistencyRanges(size1, size2).map((range) => rangeHash(rfc6962, range, lookup)),
    rootAt: (size: number) => rangeHash(rfc6962, { start: 0, end: size }, lookup),
  };
}

describe('the RFC 6962 hasher', () => {
  it.each([
    ['the empty tree', rfc6962.emptyRoot(), 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855'],
    [
      'an empty leaf',
      rfc6962.hashLeaf(Buffer.alloc(0)),
      '6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d',
    ],
    [
      'a leaf',
      rfc6962.hashLeaf(Buffer.from('L123456')),
      '395aa064aa4c29f7010acfe3f25db9485bbd4b91897b6ad7ad547639252b4d56',
    ],
    [
      'a node',
      rfc6962.hashChildren(Buffer.from('N123'), Buffer.from('N456')),
      'aa217fe888e47007fa15edab33c2b492a722cb106c64667fc2b044444de66bbb',
    ],
  ])('hashes %s as the reference does', (_name, got, want) => {
    expect(Buffer.from(got).toString('hex')).toBe(want);
  });

  it('keeps a node apart from a leaf of the same bytes (second-preimage resistance)', () => {
    const [a, b] = [rfc6962.hashLeaf(Buffer.from('Hello')), rfc6962.hashLeaf(Buffer.from('World'))];
    expect(Buffer.from(rfc6962.hashChildren(a, b)).equals(Buffer.from(rfc6962.hashLeaf(Buffer.concat([a, b]))))).toBe(
      false,
    );
    expect(Buffer.from(rfc6962.hashChildren(a, b)).equals(Buffer.from(rfc6962.hashChildren(b, a)))).toBe(false);
  });
});

describe('growing the tree', () => {
  it('gives the reference root for every prefix of the eight reference leaves, appended at once or one by one', () => {
    let edge = EMPTY_EDGE;
    LEAVES.forEach((leaf, i) => {
      edge = appendLeaves(rfc6962, edge, [rfc6962.hashLeaf(leaf)]).edge;
      expect(Buffer.from(rootOf(rfc6962, edge)).toString('hex')).toBe(ROOTS[i]!.toString('hex'));
      expect(
        Buffer.from(buildTree(LEAVES.slice(0, i + 1).map((l) => rfc6962.hashLeaf(l))).root).equals(ROOTS[i]!),
      ).toBe(true);
    });
  });

  it('answers the empty tree with the hash of nothing', () => {
    expect(Buffer.from(rootOf(rfc6962, EMPTY_EDGE)).toString('hex')).toBe(
      'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855',
    );
  });

  it('needs only O(log n) stored subtrees for a proof in a million-leaf tree', () => {
    expect(nodesFor(inclusionRanges(765_432, 1_000_000)).length).toBeLessThanOrEqual(2 * 20);
    expect(nodesFor(consistencyRanges(456_789, 1_000_000)).length).toBeLessThanOrEqual(2 * 20);
  });
});

describe('proofs built from stored subtrees', () => {
  const tree = buildTree(LEAVES.map((leaf) => rfc6962.hashLeaf(leaf)));
  const happyInclusion = fixture.inclusion.filter((c) => c.file.endsWith('happy-path.json'));
  const happyConsistency = fixture.consistency.filter((c) => c.file.endsWith('happy-path.json'));

  it.each(happyInclusion.map((c) => [c.file, c] as const))('reproduce the reference inclusion proof %s', (_file, c) => {
    const proof = tree.inclusion(integer(c.leafIdx), integer(c.treeSize));
    expect(proof.map((hash) => Buffer.from(hash).toString('base64'))).toEqual(c.proof);
    expect(Buffer.from(tree.rootAt(integer(c.treeSize))).toString('base64')).toBe(c.root);
  });

  it.each(happyConsistency.map((c) => [c.file, c] as const))(
    'reproduce the reference consistency proof %s',
    (_file, c) => {
      expect(
        tree.consistency(integer(c.size1), integer(c.size2)).map((hash) => Buffer.from(hash).toString('base64')),
      ).toEqual(c.proof);
    },
  );

  it('verify for every leaf of every tree up to 70 leaves, and fail for the neighbour leaf', () => {
    const leaves = Array.from({ length: 70 }, (_, i) => rfc6962.hashLeaf(Buffer.from(`leaf ${i}`)));
    const big = buildTree(leaves);
    for (let size = 1; size <= leaves.length; size += 1) {
      const root = big.rootAt(size);
      for (let index = 0; index < size; index += 1) {
        const proof = big.inclusion(index, size);
        expect(verifyInclusion(rfc6962, index, size, leaves[index]!, proof, root)).toBe(true);
        if (size > 1)
          expect(verifyInclusion(rfc6962, index, size, leaves[(index + 1) % size]!, proof, root)).toBe(false);
      }
    }
  });

  it('verify consistency between every pair of sizes up to 70, and fail when an old leaf was rewritten', () => {
    const leaves = Array.from({ length: 70 }, (_, i) => rfc6962.hashLeaf(Buffer.from(`leaf ${i}`)));
    const big = buildTree(leaves);
    const rewritten = buildTree(leaves.map((leaf, i) => (i === 0 ? rfc6962.hashLeaf(Buffer.from('rewritten')) : leaf)));
    for (let size2 = 1; size2 <= leaves.length; size2 += 1) {
      for (let size1 = 1; size1 <= size2; size1 += 1) {
        const proof = big.consistency(size1, size2);
        expect(verifyConsistency(rfc6962, size1, size2, proof, big.rootAt(size1), big.rootAt(size2))).toBe(true);
        expect(
          verifyConsistency(
            rfc6962,
            size1,
            size2,
            rewritten.consistency(size1, size2),
            big.rootAt(size1),
            rewritten.rootAt(size2),
          ),
        ).toBe(false);
      }
    }
  });
});

describe('the transparency-dev/merkle reference vectors', () => {
  it('has both the happy paths and the negative cases', () => {
    expect(fixture.inclusion.filter((c) => c.wantErr).length).toBeGreaterThan(60);
    expect(fixture.consistency.filter((c) => c.wantErr).length).toBeGreaterThan(60);
  });

  it.each(fixture.inclusion.map((c) => [c.file, c.wantErr ? 'fails' : 'verifies', c] as const))(
    'inclusion %s %s',
    (_file, _outcome, c) => {
      const ok = verifyInclusion(
        rfc6962,
        integer(c.leafIdx),
        integer(c.treeSize),
        b64(c.leafHash),
        c.proof.map(b64),
        b64(c.root),
      );
      expect(ok).toBe(!c.wantErr);
    },
  );

  it.each(fixture.consistency.map((c) => [c.file, c.wantErr ? 'fails' : 'verifies', c] as const))(
    'consistency %s %s',
    (_file, _outcome, c) => {
      const ok = verifyConsistency(
        rfc6962,
        integer(c.size1),
        integer(c.size2),
        c.proof.map(b64),
        b64(c.root1),
        b64(c.root2),
      );
      expect(ok).toBe(!c.wantErr);
    },
  );

  it.each([
    // From verify_test.go TestVerifyConsistency: sizes that are always consistent, time travel, and proofs where none may be.
    [0, 0, 'same', [], true],
    [0, 1, 'different', [], true],
    [1, 1, 'same', [], true],
    [0, 0, 'different', [], false],
    [1, 1, 'different', [], false],
    [1, 0, 'different', [], false],
    [2, 1, 'different', [], false],
    [1, 2, 'different', [], false],
    [0, 0, 'same', ['empty'], false],
    [0, 1, 'same', ['empty'], false],
    [1, 1, 'same', ['empty'], false],
  ] as const)('consistency from %d to %d with %s roots and proof %j: %s', (size1, size2, roots, proof, want) => {
    const root1 = rfc6962.emptyRoot();
    const root2 = roots === 'same' ? root1 : rfc6962.hashLeaf(Buffer.from('other'));
    expect(
      verifyConsistency(
        rfc6962,
        size1,
        size2,
        proof.map(() => rfc6962.emptyRoot()),
        root1,
        root2,
      ),
    ).toBe(want);
  });
});

import { assignReviewer, suggestReviewers, type LoadedReviewer } from '../../../domain/routing/reviewer-assignment';

describe('assignReviewer', () => {
  const loaded = (
    did: string,
    chain_level: number,
    open_assignments: number,
    capacity: number | null = null,
    weight = 0.9,
  ): LoadedReviewer => ({
    did,
    display_name: did,
    capabilities: { diagnosis: weight },
    chain_level,
    available: true,
    open_assignments,
    capacity,
  });
  const need = [{ capability_id: 'diagnosis', min_weight: 0.8 }];

  it.each<[string, LoadedReviewer[], { aboveChainLevel?: number; exclude?: string[] }, string | undefined]>([
    [
      'picks the least loaded at the lowest level',
      [loaded('did:x:a', 1, 3), loaded('did:x:b', 1, 1), loaded('did:x:c', 2, 0)],
      {},
      'did:x:b',
    ],
    ['skips a reviewer at capacity', [loaded('did:x:a', 1, 2, 2), loaded('did:x:b', 1, 5)], {}, 'did:x:b'],
    ['moves up a level when the first is full', [loaded('did:x:a', 1, 2, 2), loaded('did:x:c', 2, 9)], {}, 'did:x:c'],
    [
      'breaks a load tie by the stronger match',
      [loaded('did:x:a', 1, 1, null, 0.85), loaded('did:x:b', 1, 1, null, 0.95)],
      {},
      'did:x:b',
    ],
    ['breaks a full tie by DID', [loaded('did:x:b', 1, 1), loaded('did:x:a', 1, 1)], {}, 'did:x:a'],
    ['ignores the unqualified', [loaded('did:x:a', 1, 0, null, 0.5)], {}, undefined],
    ['climbs above a level', [loaded('did:x:a', 1, 0), loaded('did:x:b', 2, 4)], { aboveChainLevel: 1 }, 'did:x:b'],
    [
      'excludes the current assignee',
      [loaded('did:x:a', 1, 0), loaded('did:x:b', 1, 4)],
      { exclude: ['did:x:a'] },
      'did:x:b',
    ],
  ])('%s', (_name, reviewers, options, expected) => {
    expect(assignReviewer(reviewers, need, options)?.did).toBe(expected);
  });

  it('suggests qualified reviewers with room, least loaded first', () => {
    expect(
      suggestReviewers(
        [loaded('did:x:a', 1, 3), loaded('did:x:b', 2, 0), loaded('did:x:c', 1, 1, 1), loaded('did:x:d', 1, 1)],
        need,
      ),
    ).toEqual(['did:x:b', 'did:x:d', 'did:x:a']);
  });
});

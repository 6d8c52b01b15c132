import { assignReviewer, selectReviewer, suggestReviewers, type LoadedReviewer, type Reviewer } from '../../domain/reviewer-assignment';

const reviewer = (did: string, chain_level: number, capabilities: Record<string, number>, available = true): Reviewer => ({
  did,
  display_name: did,
  capabilities,
  chain_level,
  available,
});

const team = [
  reviewer('did:x:b-nurse', 1, { triage: 0.7 }),
  reviewer('did:x:a-doctor', 1, { triage: 0.9, diagnosis: 0.9 }),
  reviewer('did:x:senior', 2, { triage: 0.95, diagnosis: 0.95 }),
  reviewer('did:x:away', 1, { triage: 1, diagnosis: 1 }, false),
  reviewer('did:x:chief', 3, { diagnosis: 0.6 }),
];

describe('selectReviewer', () => {
  it.each<[string, Parameters<typeof selectReviewer>[1], number, string | undefined]>([
    ['picks the lowest chain level first, ties by DID', [{ capability_id: 'triage', min_weight: 0.5 }], 0, 'did:x:a-doctor'],
    ['skips reviewers below the minimum weight', [{ capability_id: 'triage', min_weight: 0.8 }], 0, 'did:x:a-doctor'],
    ['requires every capability', [{ capability_id: 'triage', min_weight: 0.5 }, { capability_id: 'diagnosis', min_weight: 0.92 }], 0, 'did:x:senior'],
    ['moves above the given chain level', [{ capability_id: 'diagnosis', min_weight: 0.5 }], 1, 'did:x:senior'],
    ['reaches the top of the chain', [{ capability_id: 'diagnosis', min_weight: 0.5 }], 2, 'did:x:chief'],
    ['finds nobody past the top', [{ capability_id: 'diagnosis', min_weight: 0.5 }], 3, undefined],
    ['never picks an unavailable reviewer', [{ capability_id: 'triage', min_weight: 0.99 }], 0, undefined],
    ['takes anyone when nothing is required', [], 0, 'did:x:a-doctor'],
  ])('%s', (_name, required, above, expected) => {
    expect(selectReviewer(team, required, above)?.did).toBe(expected);
  });

  it('reports the weights it matched', () => {
    expect(selectReviewer(team, [{ capability_id: 'diagnosis', min_weight: 0.5 }])).toEqual({
      did: 'did:x:a-doctor',
      chain_level: 1,
      capabilities_matched: [{ capability_id: 'diagnosis', weight: 0.9 }],
    });
  });
});

describe('assignReviewer', () => {
  const loaded = (did: string, chain_level: number, open_assignments: number, capacity: number | null = null, weight = 0.9): LoadedReviewer => ({
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
    ['picks the least loaded at the lowest level', [loaded('did:x:a', 1, 3), loaded('did:x:b', 1, 1), loaded('did:x:c', 2, 0)], {}, 'did:x:b'],
    ['skips a reviewer at capacity', [loaded('did:x:a', 1, 2, 2), loaded('did:x:b', 1, 5)], {}, 'did:x:b'],
    ['moves up a level when the first is full', [loaded('did:x:a', 1, 2, 2), loaded('did:x:c', 2, 9)], {}, 'did:x:c'],
    ['breaks a load tie by the stronger match', [loaded('did:x:a', 1, 1, null, 0.85), loaded('did:x:b', 1, 1, null, 0.95)], {}, 'did:x:b'],
    ['breaks a full tie by DID', [loaded('did:x:b', 1, 1), loaded('did:x:a', 1, 1)], {}, 'did:x:a'],
    ['ignores the unqualified', [loaded('did:x:a', 1, 0, null, 0.5)], {}, undefined],
    ['climbs above a level', [loaded('did:x:a', 1, 0), loaded('did:x:b', 2, 4)], { aboveChainLevel: 1 }, 'did:x:b'],
    ['excludes the current assignee', [loaded('did:x:a', 1, 0), loaded('did:x:b', 1, 4)], { exclude: ['did:x:a'] }, 'did:x:b'],
  ])('%s', (_name, reviewers, options, expected) => {
    expect(assignReviewer(reviewers, need, options)?.did).toBe(expected);
  });

  it('suggests qualified reviewers with room, least loaded first', () => {
    expect(suggestReviewers([loaded('did:x:a', 1, 3), loaded('did:x:b', 2, 0), loaded('did:x:c', 1, 1, 1), loaded('did:x:d', 1, 1)], need)).toEqual(['did:x:b', 'did:x:d', 'did:x:a']);
  });
});

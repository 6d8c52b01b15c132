import type { RequiredCapability } from '../../../domain/routing/decision';
import {
  assignReviewer,
  coveringColleague,
  describeAssignee,
  humanAssignee,
  suggestReviewers,
  type LoadedReviewer,
  type ReviewerCover,
} from '../../../domain/routing/reviewer-assignment';

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

describe('covers at assignment', () => {
  const ada: LoadedReviewer = {
    did: 'did:x:ada',
    display_name: 'Ada',
    capabilities: { diagnosis: 0.9, triage: 0.9 },
    chain_level: 2,
    available: true,
    open_assignments: 0,
    capacity: null,
  };
  const cover = (covering_did: string, capabilities: string[] | null = null): ReviewerCover => ({
    covering_did,
    capabilities,
  });
  const diagnosis = [{ capability_id: 'Diagnosis', min_weight: 0.8 }];
  const both = [...diagnosis, { capability_id: 'triage', min_weight: 0.5 }];

  it.each<[string, ReviewerCover[] | undefined, RequiredCapability[], string[], string | undefined]>([
    ['no cover: nobody', undefined, diagnosis, [], undefined],
    ['an unlimited cover: the colleague', [cover('did:x:bea')], diagnosis, [], 'did:x:bea'],
    ['an unlimited cover takes a routing that names no capability', [cover('did:x:bea')], [], [], 'did:x:bea'],
    ['the newest cover first', [cover('did:x:cal'), cover('did:x:bea')], diagnosis, [], 'did:x:cal'],
    [
      'a limited cover holding every need, without case',
      [cover('did:x:bea', ['DIAGNOSIS'])],
      diagnosis,
      [],
      'did:x:bea',
    ],
    ['a limited cover missing a need: nobody', [cover('did:x:bea', ['diagnosis'])], both, [], undefined],
    [
      'a limited cover and a routing naming no capability: nobody',
      [cover('did:x:bea', ['diagnosis'])],
      [],
      [],
      undefined,
    ],
    [
      'skips a limited cover that does not apply for an older one that does',
      [cover('did:x:cal', ['billing']), cover('did:x:bea')],
      diagnosis,
      [],
      'did:x:bea',
    ],
    ['never a colleague the routing moves away from', [cover('did:x:bea')], diagnosis, ['did:x:bea'], undefined],
    ['never the reviewer themself', [cover('did:x:ada')], diagnosis, [], undefined],
  ])('%s', (_name, covers, required, exclude, expected) => {
    expect(coveringColleague({ did: ada.did, covers }, required, exclude)).toBe(expected);
  });

  it('assigns the colleague at the covered reviewer’s chain level, recording whom they cover for', () => {
    expect(assignReviewer([{ ...ada, covers: [cover('did:x:bea')] }], diagnosis, { aboveChainLevel: 1 })).toEqual({
      did: 'did:x:bea',
      chain_level: 2,
      covering_for: 'did:x:ada',
      capabilities_matched: [{ capability_id: 'Diagnosis', weight: 0.9 }],
    });
    expect(assignReviewer([ada], diagnosis)).not.toHaveProperty('covering_for');
  });

  it('words and shapes the assignee as "Bea, covering for Ada"', () => {
    const to = { did: 'did:x:bea', chain_level: 2, covering_for: 'did:x:ada', capabilities_matched: [] };
    expect(describeAssignee(to)).toBe('did:x:bea, covering for did:x:ada');
    expect(humanAssignee(to)).toEqual({
      type: 'human',
      did: 'did:x:bea',
      covering_for: 'did:x:ada',
      capabilities_matched: [],
    });
    expect(humanAssignee({ did: 'did:x:ada', chain_level: 2, capabilities_matched: [] })).not.toHaveProperty(
      'covering_for',
    );
  });
});

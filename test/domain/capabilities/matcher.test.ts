import { impliedBy, satisfiersOf } from '../../../domain/capabilities/graph';
import {
  matchCandidates,
  matchSatisfying,
  satisfierIndex,
  type Candidate,
  type HeldGrant,
  type Requirement,
} from '../../../domain/capabilities/matcher';
import { ownCapabilityName, parseCapabilityUri } from '../../../domain/capabilities/uris';

const NOW = Date.parse('2026-11-29T12:00:00Z');
const HOUR = 3_600_000;
const implications = new Map<string, string[]>([
  ['cardiology', ['physician']],
  ['physician', ['clinician']],
  ['loop-a', ['loop-b']],
  ['loop-b', ['loop-a']],
]);

const grant = (capability: string, weight: number, extra: Partial<HeldGrant> = {}): HeldGrant => ({
  grant_id: `g-${capability}-${weight}`,
  capability,
  weight,
  expires_at: null,
  revoked: false,
  ...extra,
});
const person = (did: string, grants: HeldGrant[], extra: Partial<Candidate> = {}): Candidate => ({
  kind: 'person',
  did,
  available: true,
  open_assignments: 0,
  capacity: null,
  grants,
  ...extra,
});
const need = (capability: string, min_weight = 0, relax_after_seconds?: number): Requirement => ({
  capability,
  min_weight,
  relax_after_seconds,
});
const dids = (candidates: Candidate[], required: Requirement[], waited = 0) =>
  matchCandidates(candidates, required, implications, { now: NOW, waited_seconds: waited }).map((m) => m.did);

describe('capability URIs', () => {
  it.each([
    ['capability://acme/cardiology', { org: 'acme', name: 'cardiology' }],
    ['capability://cardiology', { name: 'cardiology' }],
    ['cardiology', { name: 'cardiology' }],
    ['capability://Acme/x', undefined],
    ['capability://a/b/c', undefined],
    ['capability://', undefined],
  ])('parses %s', (uri, parsed) => expect(parseCapabilityUri(uri)).toEqual(parsed));

  it.each([
    ['capability://acme/x', 'x'],
    ['capability://org_1/x', 'x'],
    ['capability://x', 'x'],
    ['capability://other/x', undefined],
  ])('takes %s as its own organization’s only when the segment is its own', (uri, name) =>
    expect(ownCapabilityName(uri, ['acme', 'org_1'])).toBe(name),
  );
});

describe('implications', () => {
  it('follows implications transitively, with the chain', () =>
    expect(satisfiersOf('clinician', implications)).toEqual(
      new Map([
        ['clinician', ['clinician']],
        ['physician', ['physician', 'clinician']],
        ['cardiology', ['cardiology', 'physician', 'clinician']],
      ]),
    ));
  it('survives a cycle', () => expect(impliedBy('loop-a', implications).sort()).toEqual(['loop-a', 'loop-b']));
});

describe('matching', () => {
  it.each<[string, Candidate[], Requirement[], string[], number?]>([
    [
      'matches a direct grant at or above the weight',
      [person('a', [grant('physician', 0.8)])],
      [need('physician', 0.8)],
      ['a'],
    ],
    ['refuses a grant below the weight', [person('a', [grant('physician', 0.7)])], [need('physician', 0.8)], []],
    [
      'follows an implication (a cardiologist is a physician)',
      [person('a', [grant('cardiology', 0.9)])],
      [need('clinician', 0.5)],
      ['a'],
    ],
    ['does not follow an implication backwards', [person('a', [grant('physician', 0.9)])], [need('cardiology')], []],
    [
      'never matches an expired grant',
      [person('a', [grant('physician', 1, { expires_at: NOW })])],
      [need('physician')],
      [],
    ],
    [
      'matches a grant expiring later',
      [person('a', [grant('physician', 1, { expires_at: NOW + HOUR })])],
      [need('physician')],
      ['a'],
    ],
    [
      'never matches a revoked grant',
      [person('a', [grant('physician', 1, { revoked: true })])],
      [need('physician')],
      [],
    ],
    [
      'never matches an absent candidate',
      [person('a', [grant('physician', 1)], { available: false })],
      [need('physician')],
      [],
    ],
    [
      'never matches a candidate at capacity',
      [person('a', [grant('physician', 1)], { open_assignments: 2, capacity: 2 })],
      [need('physician')],
      [],
    ],
    ['needs every requirement', [person('a', [grant('physician', 1)])], [need('physician'), need('triage')], []],
    [
      'keeps a requirement before its wait is over',
      [person('a', [grant('physician', 1)])],
      [need('physician'), need('triage', 0, 300)],
      [],
      299,
    ],
    [
      'relaxes a requirement once the wait is over',
      [person('a', [grant('physician', 1)])],
      [need('physician'), need('triage', 0, 300)],
      ['a'],
      300,
    ],
    [
      'ranks by weight, then load',
      [
        person('light', [grant('physician', 0.8)]),
        person('strong', [grant('physician', 0.9)], { open_assignments: 5 }),
        person('busy', [grant('physician', 0.8)], { open_assignments: 1 }),
      ],
      [need('physician')],
      ['strong', 'light', 'busy'],
    ],
  ])('%s', (_name, candidates, required, expected, waited = 0) =>
    expect(dids(candidates, required, waited)).toEqual(expected),
  );

  it('says why each candidate matched', () => {
    const [match] = matchCandidates(
      [person('a', [grant('cardiology', 0.9), grant('physician', 0.6)])],
      [need('clinician', 0.5), need('triage', 0.5, 60)],
      implications,
      { now: NOW, waited_seconds: 120 },
    );
    expect(match).toMatchObject({
      did: 'a',
      score: 0.45,
      met: [
        {
          capability: 'clinician',
          weight: 0.9,
          grant_id: 'g-cardiology-0.9',
          via: ['cardiology', 'physician', 'clinician'],
        },
      ],
      relaxed: ['triage'],
      reason: 'holds cardiology at 0.9, which implies physician → clinician (≥ 0.5); triage relaxed after 120 s',
    });
  });

  it('orders by load first when asked (assignment), and keeps to the kinds asked for', () => {
    const candidates = [
      person('strong', [grant('x', 1)], { open_assignments: 3 }),
      person('light', [grant('x', 0.5)]),
      { ...person('agent', [grant('x', 1)]), kind: 'agent' as const },
    ];
    const ranked = matchCandidates(candidates, [need('x')], implications, {
      now: NOW,
      order: 'load',
      kinds: ['person'],
    });
    expect(ranked.map((m) => m.did)).toEqual(['light', 'strong']);
  });

  it('matches alike from satisfiers read with the candidates (the closure), a requirement missing from them satisfied by itself', () => {
    const candidates = [
      person('cardiologist', [grant('cardiology', 0.9)]),
      person('physician', [grant('physician', 0.7)]),
      person('triager', [grant('triage', 0.8), grant('physician', 0.6)]),
    ];
    const required = [need('clinician', 0.5), need('triage', 0.5, 60)];
    const options = { now: NOW, waited_seconds: 120 };
    const closure = satisfierIndex([need('clinician')], implications);
    expect(matchSatisfying(candidates, required, closure, options)).toEqual(
      matchCandidates(candidates, required, implications, options),
    );
    expect(matchSatisfying(candidates, [need('triage')], new Map(), options).map((m) => m.did)).toEqual(['triager']);
  });
});

import { coverProblems, coversInForceAt, seatsAfterCovers } from '../../../domain/approvals/covers';

const ADA = 'did:web:acme:ada';
const BEA = 'did:web:acme:bea';
const CAL = 'did:web:acme:cal';
const REQUESTER = 'did:web:acme:agents:payer';

describe('seats after covers', () => {
  it.each([
    [
      'a named approver away: the colleague takes the seat',
      { approver_passport_id: ADA },
      [[ADA, BEA]],
      { approver_passport_id: BEA, covering_for: { [BEA]: ADA } },
    ],
    ['nobody away: unchanged', { approver_passport_id: ADA }, [], { approver_passport_id: ADA }],
    [
      'the colleague is the requester: the named person keeps the seat',
      { approver_passport_id: ADA },
      [[ADA, REQUESTER]],
      { approver_passport_id: ADA },
    ],
    [
      'a quorum seat covered',
      { approvers: [ADA, CAL] },
      [[ADA, BEA]],
      { approvers: [BEA, CAL], covering_for: { [BEA]: ADA } },
    ],
    [
      'a colleague already on the quorum: no second seat',
      { approvers: [ADA, BEA] },
      [[ADA, BEA]],
      { approvers: [ADA, BEA] },
    ],
    [
      'two away to one colleague: only the first seat moves',
      { approvers: [ADA, CAL] },
      [
        [ADA, BEA],
        [CAL, BEA],
      ],
      { approvers: [BEA, CAL], covering_for: { [BEA]: ADA } },
    ],
  ] as const)('%s', (_name, seats, covers, expected) => {
    const request = {
      requester_passport_id: REQUESTER,
      ...seats,
      approvers: 'approvers' in seats ? [...seats.approvers] : undefined,
    };
    const inForce = covers.map(([covered, covering]) => ({ covered, covering }));
    expect(seatsAfterCovers(request, inForce)).toEqual(expected);
  });
});

describe('covers in force at an instant', () => {
  const cover = (covered: string, covering: string, starts_at: number, ends_at: number, created_at = 0) => ({
    covered,
    covering,
    starts_at,
    ends_at,
    created_at,
  });
  it.each([
    ['inside its window', [cover(ADA, BEA, 10, 20)], 15, [{ covered: ADA, covering: BEA }]],
    ['from its first instant', [cover(ADA, BEA, 10, 20)], 10, [{ covered: ADA, covering: BEA }]],
    ['not at its end', [cover(ADA, BEA, 10, 20)], 20, []],
    ['not before its start', [cover(ADA, BEA, 10, 20)], 5, []],
    [
      'the newest of one person’s covers',
      [cover(ADA, BEA, 10, 20, 1), cover(ADA, CAL, 10, 20, 2)],
      15,
      [{ covered: ADA, covering: CAL }],
    ],
    [
      'the newest in force, not the newest set',
      [cover(ADA, BEA, 10, 20, 1), cover(ADA, CAL, 30, 40, 2)],
      15,
      [{ covered: ADA, covering: BEA }],
    ],
    [
      'each person’s own',
      [cover(ADA, BEA, 10, 20), cover(CAL, BEA, 10, 20)],
      15,
      [
        { covered: ADA, covering: BEA },
        { covered: CAL, covering: BEA },
      ],
    ],
  ] as const)('%s', (_name, covers, at, expected) => {
    expect(coversInForceAt(covers, at)).toEqual(expected);
  });
});

describe('a cover’s window and parties', () => {
  const now = new Date('2026-11-27T10:00:00Z');
  const at = (iso: string) => new Date(iso);
  it.each([
    [
      'covering oneself',
      { covered_did: ADA, covering_did: ADA },
      '2026-11-27T10:00:00Z',
      '2026-11-28T10:00:00Z',
      'self_cover',
    ],
    [
      'an end before the start',
      { covered_did: ADA, covering_did: BEA },
      '2026-11-28T10:00:00Z',
      '2026-11-27T12:00:00Z',
      'end_before_start',
    ],
    [
      'an end already past',
      { covered_did: ADA, covering_did: BEA },
      '2026-11-20T10:00:00Z',
      '2026-11-21T10:00:00Z',
      'in_the_past',
    ],
    [
      'over the longest window',
      { covered_did: ADA, covering_did: BEA },
      '2026-11-27T10:00:00Z',
      '2027-06-01T10:00:00Z',
      'too_long',
    ],
  ])('refuses %s', (_name, parties, starts, ends, code) => {
    const problems = coverProblems({ ...parties, starts_at: at(starts), ends_at: at(ends) }, now, 90);
    expect(problems.map((problem) => problem.code)).toEqual([code]);
  });

  it('takes two weeks from now', () => {
    const window = { starts_at: now, ends_at: at('2026-12-11T10:00:00Z') };
    expect(coverProblems({ covered_did: ADA, covering_did: BEA, ...window }, now, 90)).toEqual([]);
  });
});

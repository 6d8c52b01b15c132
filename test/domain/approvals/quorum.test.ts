import { expiryTransition, nextDeadlineMs } from '../../../domain/approvals/expiry';
import { approvalsNeeded, quorumOutcome, voteRefusal, type ApprovalVote } from '../../../domain/approvals/quorum';

const approvers = ['did:web:a.example:ada', 'did:web:a.example:bea', 'did:web:a.example:cal'];
const twoOfThree = { approval_id: 'apr_1', approvers, required_approvals: 2 };
const vote = (approver: string, decision: 'approved' | 'rejected'): ApprovalVote => ({
  approver,
  passport_id: `pp_${approver.slice(-3)}`,
  decision,
  voted_at: '2026-01-01T00:00:00.000Z',
  provenance_id: 'tx',
});
const [ada, bea, cal] = approvers as [string, string, string];

describe('a 2-of-3 quorum', () => {
  it.each([
    ['no votes', [], 'pending', 2],
    ['one approval', [vote(ada, 'approved')], 'pending', 1],
    ['two approvals', [vote(ada, 'approved'), vote(bea, 'approved')], 'approved', 0],
    ['one rejection (two approvals still possible)', [vote(ada, 'rejected')], 'pending', 2],
    ['two rejections (two approvals out of reach)', [vote(ada, 'rejected'), vote(bea, 'rejected')], 'rejected', 2],
    [
      'a rejection between approvals',
      [vote(ada, 'approved'), vote(bea, 'rejected'), vote(cal, 'approved')],
      'approved',
      0,
    ],
  ] as const)('with %s is %s, needing %i more', (_name, votes, outcome, needed) => {
    expect(quorumOutcome(twoOfThree, votes)).toBe(outcome);
    expect(approvalsNeeded(twoOfThree, votes)).toBe(needed);
  });

  it('refuses a person without a seat, and a second vote by the same person or for the same seat', () => {
    expect(voteRefusal(twoOfThree, { did: 'did:web:a.example:dee', passport_id: 'pp_dee' })?.code).toBe(
      'not_the_approver',
    );
    const voted = { ...twoOfThree, votes: [vote(ada, 'approved')] };
    expect(voteRefusal(voted, { did: ada, passport_id: 'pp_other' })?.code).toBe('already_voted');
    expect(voteRefusal(voted, { did: bea, passport_id: 'pp_ada' })?.code).toBe('already_voted');
    expect(voteRefusal(voted, { did: bea, passport_id: 'pp_bea' })).toBeUndefined();
  });
});

describe('what a deadline does', () => {
  const request = {
    approval_id: 'apr_1',
    status: 'pending' as const,
    approver_passport_id: ada,
    created_at: '2026-01-01T00:00:00.000Z',
    expires_at: '2026-01-01T01:00:00.000Z',
  };
  const next = '2026-01-01T02:00:00.000Z';

  it.each([
    [undefined, { status: 'expired', expiry_outcome: 'rejected' }],
    ['reject', { status: 'expired', expiry_outcome: 'rejected' }],
    ['approve', { status: 'approved', expiry_outcome: 'approved' }],
    ['hold', { expiry_outcome: 'held' }],
  ] as const)('on_expiry %s changes %j, stated in an approval.expired event', (onExpiry, changes) => {
    const transition = expiryTransition({ ...request, on_expiry: onExpiry }, next);
    expect(transition.changes).toMatchObject(changes);
    expect(transition.event).toBe('approval.expired');
    if (onExpiry === 'hold') expect(transition.changes.status).toBeUndefined();
  });

  it('escalates level by level, and rejects when no level is left', () => {
    const escalating = { ...request, on_expiry: 'escalate' as const, escalate_to: [bea, cal] };
    expect(expiryTransition(escalating, next)).toMatchObject({
      step_id: 'escalated:1',
      changes: { expiry_outcome: 'escalated', approver_passport_id: bea, escalation_level: 1, expires_at: next },
    });
    expect(expiryTransition({ ...escalating, escalation_level: 1 }, next).changes.approver_passport_id).toBe(cal);
    expect(expiryTransition({ ...escalating, escalation_level: 2 }, next)).toMatchObject({
      step_id: 'expired',
      changes: { status: 'expired', expiry_outcome: 'rejected' },
    });
  });

  it('gives each level the first lifetime, on one grid', () => {
    const hour = 3_600_000;
    expect(nextDeadlineMs(0, 0, hour)).toBe(2 * hour);
    expect(nextDeadlineMs(1, 0, 2 * hour)).toBe(3 * hour);
  });
});

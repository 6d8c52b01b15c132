import {
  acceptanceRefusal,
  countsForRecovery,
  enrollmentRefusal,
  guardianStatusAt,
  recoveryThreshold,
  type GuardianFacts,
} from '../../../domain/recovery/guardians';
import {
  approvalRefusal,
  codeOutcome,
  snapshotRefusal,
  staleApproval,
  thresholdMet,
  type RecoveryFacts,
} from '../../../domain/recovery/requests';

const NOW = '2026-11-27T12:00:00.000Z';
const BEFORE = '2026-11-27T11:00:00.000Z';
const LATER = '2026-11-27T13:00:00.000Z';

const request: RecoveryFacts = {
  request_id: 'rcv_1',
  status: 'collecting_approvals',
  passport_id: 'pp_owner',
  approval_nonce: 'nonce-1',
  new_credential: { hash: 'hash-1' },
  guardians: ['a', 'b', 'c'].map((n) => ({ guardian_id: `g_${n}`, guardian_passport_id: `pp_${n}`, guardian_did: n })),
  approvals: [],
  threshold: 2,
  code_attempts: 0,
  max_code_attempts: 5,
};
const claim = (passport: string, extra = {}) => ({
  guardian_passport_id: passport,
  guardian_did: passport,
  nonce: 'nonce-1',
  new_credential_hash: 'hash-1',
  ...extra,
});

describe('a recovery approval', () => {
  it.each([
    ['a guardian of the snapshot, bound to this request', request, claim('pp_a'), undefined],
    ['the owner', request, claim('pp_owner'), 'recovery_not_guardian'],
    ['a stranger (a guardian of another Passport)', request, claim('pp_z'), 'recovery_not_guardian'],
    ['another request’s nonce', request, claim('pp_a', { nonce: 'nonce-2' }), 'recovery_approval_other_request'],
    ['another credential', request, claim('pp_a', { new_credential_hash: 'h2' }), 'recovery_credential_mismatch'],
    [
      'a replay of a recorded approval',
      { ...request, approvals: [{ guardian_id: 'g_a' }] },
      claim('pp_a'),
      'recovery_approval_replayed',
    ],
    [
      'a request no longer collecting',
      { ...request, status: 'time_locked' as const },
      claim('pp_a'),
      'recovery_not_collecting',
    ],
  ])('%s', (_name, facts, input, code) => {
    expect(approvalRefusal(facts, input)?.code).toBe(code);
  });

  it('counts a queued approval of the same guardian as given (a replay racing the first)', () => {
    expect(approvalRefusal(request, claim('pp_a'), ['g_a'])?.code).toBe('recovery_approval_replayed');
    expect(approvalRefusal(request, claim('pp_b'), ['g_a'])).toBeUndefined();
  });

  it('is stale when stamped further from the service’s clock than allowed, either way', () => {
    const at = Date.parse(NOW);
    expect(staleApproval({ timestamp: NOW, at_ms: at - 300_000 }, at, 300)).toBeUndefined();
    expect(staleApproval({ timestamp: NOW, at_ms: at - 300_001 }, at, 300)?.code).toBe('recovery_approval_stale');
    expect(staleApproval({ timestamp: NOW, at_ms: at + 300_001 }, at, 300)?.code).toBe('recovery_approval_stale');
  });
});

describe('the threshold and the snapshot', () => {
  it.each([
    [3, 2],
    [4, 3],
    [5, 3],
  ])('a strict majority of %i guardians is %i', (guardians, threshold) => {
    expect(recoveryThreshold(guardians)).toBe(threshold);
  });

  it('is met at the threshold, not before', () => {
    expect(thresholdMet({ threshold: 2, approvals: [{ guardian_id: 'g_a' }] })).toBe(false);
    expect(thresholdMet({ threshold: 2, approvals: [{ guardian_id: 'g_a' }, { guardian_id: 'g_b' }] })).toBe(true);
  });

  it.each([
    [2, 'recovery_guardians_insufficient'],
    [3, undefined],
    [5, undefined],
    [6, 'recovery_guardians_insufficient'],
  ])('a snapshot of %i guardians: %s', (count, code) => {
    expect(snapshotRefusal(count)?.code).toBe(code);
  });
});

describe('a confirmation code attempt', () => {
  it.each([
    [0, true, 'confirmed'],
    [0, false, 'wrong'],
    [3, false, 'wrong'],
    [4, false, 'exhausted'],
    [4, true, 'confirmed'],
  ])('after %i wrong attempts, a %s match is %s', (attempts, matches, outcome) => {
    expect(codeOutcome({ code_attempts: attempts, max_code_attempts: 5 }, matches)).toBe(outcome);
  });
});

describe('guardians', () => {
  const guardian = (extra: Partial<GuardianFacts>): GuardianFacts => ({
    guardian_passport_id: 'pp_a',
    status: 'accepted',
    accept_by: LATER,
    effective_at: BEFORE,
    ...extra,
  });

  it('reads an invitation past its window as expired, and refuses its acceptance', () => {
    expect(guardianStatusAt(guardian({ status: 'invited', accept_by: BEFORE }), NOW)).toBe('expired');
    expect(guardianStatusAt(guardian({ status: 'invited', accept_by: LATER }), NOW)).toBe('invited');
    expect(acceptanceRefusal(guardian({ status: 'invited', accept_by: BEFORE }), NOW)?.code).toBe(
      'recovery_invitation_expired',
    );
    expect(acceptanceRefusal(guardian({ status: 'invited' }), NOW)).toBeUndefined();
  });

  it.each([
    ['accepted and in effect', {}, true],
    ['accepted, its delay still running', { effective_at: LATER }, false],
    ['removed, the removal not yet in effect', { status: 'removed' as const, removal_effective_at: LATER }, true],
    ['removed in effect', { status: 'removed' as const, removal_effective_at: BEFORE }, false],
    ['invited', { status: 'invited' as const, effective_at: undefined }, false],
  ])('counts for a request when %s: %s', (_name, extra, counts) => {
    expect(countsForRecovery(guardian(extra), NOW)).toBe(counts);
  });

  it('refuses any guardian change while a request is open, the owner, a second place and a sixth', () => {
    const base = { owner_passport_id: 'pp_owner', guardian_passport_id: 'pp_new', guardians: [], now: NOW };
    expect(enrollmentRefusal({ ...base, open_request: true })?.code).toBe('recovery_request_open');
    expect(enrollmentRefusal({ ...base, open_request: false, guardian_passport_id: 'pp_owner' })?.code).toBe(
      'recovery_guardian_is_owner',
    );
    const five = ['a', 'b', 'c', 'd', 'e'].map((n) => guardian({ guardian_passport_id: `pp_${n}` }));
    expect(enrollmentRefusal({ ...base, open_request: false, guardians: five })?.code).toBe('recovery_guardians_full');
    expect(
      enrollmentRefusal({ ...base, open_request: false, guardians: five, guardian_passport_id: 'pp_a' })?.code,
    ).toBe('recovery_guardian_exists');
    // An expired invitation frees its place.
    const expired = [
      ...five.slice(0, 4),
      guardian({ guardian_passport_id: 'pp_e', status: 'invited', accept_by: BEFORE }),
    ];
    expect(enrollmentRefusal({ ...base, open_request: false, guardians: expired })).toBeUndefined();
  });
});

/** The spec's e-mail verification: a 6-digit code, good for 15 minutes, 5 attempts, once. */
export const VERIFICATION_CODE_PATTERN = /^[0-9]{6}$/;
export const VERIFICATION_CODE_TTL_SECONDS = 15 * 60;
export const VERIFICATION_MAX_ATTEMPTS = 5;

export const LINK_STATUSES = ['pending', 'linked', 'expired', 'exhausted', 'superseded'] as const;
export type LinkStatus = (typeof LINK_STATUSES)[number];

/** A verification as the decision needs it: where it stands and how many codes were tried (this one included). */
export interface VerificationState {
  status: LinkStatus;
  attempts: number;
  expires_at: Date;
}

export type VerificationDecision =
  | { outcome: 'linked' }
  | { outcome: 'wrong_code'; attempts_remaining: number; status: 'pending' | 'exhausted' }
  | {
      outcome: 'refused';
      code: 'verification_code_used' | 'verification_code_expired' | 'verification_attempts_exhausted';
    };

/** Whether a verification may take one more attempt now: pending, unexpired, attempts left. */
export function attemptRefusal(
  state: VerificationState,
  now: Date,
): Extract<VerificationDecision, { outcome: 'refused' }> | undefined {
  if (state.status === 'linked') return { outcome: 'refused', code: 'verification_code_used' };
  if (state.status === 'exhausted' || state.attempts >= VERIFICATION_MAX_ATTEMPTS)
    return { outcome: 'refused', code: 'verification_attempts_exhausted' };
  if (state.status !== 'pending' || state.expires_at.getTime() <= now.getTime())
    return { outcome: 'refused', code: 'verification_code_expired' };
  return undefined;
}

/**
 * The decision on one attempt, `attempted` being the state after counting it: a match links (even on the
 * fifth attempt); a miss leaves the attempts that remain, and the fifth miss ends the verification.
 */
export function decideAttempt(attempted: VerificationState, matches: boolean): VerificationDecision {
  if (matches) return { outcome: 'linked' };
  const remaining = Math.max(0, VERIFICATION_MAX_ATTEMPTS - attempted.attempts);
  return { outcome: 'wrong_code', attempts_remaining: remaining, status: remaining === 0 ? 'exhausted' : 'pending' };
}

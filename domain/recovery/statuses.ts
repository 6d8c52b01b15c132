/** A guardian's standing as stored: invited until they accept (or the window passes), removed once the owner asks. */
export const GUARDIAN_STATUSES = ['invited', 'expired', 'accepted', 'removed'] as const;
export type GuardianStatus = (typeof GUARDIAN_STATUSES)[number];

/** How a guardian is told of a request: by e-mail, or by SMS (no SMS transport exists yet: such guardians are told nothing). */
export const RECOVERY_METHODS = ['email', 'sms'] as const;
export type RecoveryMethod = (typeof RECOVERY_METHODS)[number];

/**
 * A recovery request's lifecycle: guardians approve; at the threshold a time lock runs, during which the owner
 * may cancel; then a confirmation code is sent and the request completes with it. The last four are endings.
 */
export const RECOVERY_STATUSES = [
  'collecting_approvals',
  'time_locked',
  'awaiting_confirmation',
  'completed',
  'cancelled',
  'expired',
  'failed',
] as const;
export type RecoveryStatus = (typeof RECOVERY_STATUSES)[number];

/** The statuses of an open request: one Passport has at most one. */
export const OPEN_RECOVERY_STATUSES = ['collecting_approvals', 'time_locked', 'awaiting_confirmation'] as const;

export function isOpenRecovery(status: string): boolean {
  return (OPEN_RECOVERY_STATUSES as readonly string[]).includes(status);
}

/** Why a request ended without completing. */
export const RECOVERY_ENDINGS = [
  'cancelled_by_owner',
  'approval_window_passed',
  'code_expired',
  'code_attempts_exhausted',
] as const;
export type RecoveryEnding = (typeof RECOVERY_ENDINGS)[number];

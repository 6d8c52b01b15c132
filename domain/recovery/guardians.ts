/**
 * Who guards a Passport's recovery: at least three and at most five accepted guardians, never the owner. An
 * invitation is accepted by the guardian within a window; an acceptance or a removal takes effect only after a
 * delay, and no change is taken while a request is open, so a stolen session cannot arrange its own recovery.
 */
import type { GuardianStatus } from './statuses';

export const MIN_GUARDIANS = 3;
export const MAX_GUARDIANS = 5;

/** What the rules read of a guardian (the recovery_guardians row). */
export interface GuardianFacts {
  guardian_passport_id: string;
  status: GuardianStatus;
  accept_by: string;
  effective_at?: string | undefined;
  removal_effective_at?: string | undefined;
}

/** Whether an instant is at or before `now`: both ISO 8601 in UTC (toISOString), which order as strings. */
const reached = (instant: string, now: string) => instant <= now;

/** An invitation left unanswered past its window reads as expired. */
export function guardianStatusAt(guardian: GuardianFacts, now: string): GuardianStatus {
  if (guardian.status === 'invited' && reached(guardian.accept_by, now)) return 'expired';
  return guardian.status;
}

/** Whether the guardian counts for a request made at `now`: accepted, in effect, and not yet removed in effect. */
export function countsForRecovery(guardian: GuardianFacts, now: string): boolean {
  if (guardian.status !== 'accepted' && guardian.status !== 'removed') return false;
  if (!guardian.effective_at || !reached(guardian.effective_at, now)) return false;
  return !guardian.removal_effective_at || !reached(guardian.removal_effective_at, now);
}

/** Whether the guardian holds (or waits for) a place: an open invitation, or an acceptance not removed in effect. */
function holdsPlace(guardian: GuardianFacts, now: string): boolean {
  const status = guardianStatusAt(guardian, now);
  if (status === 'invited' || status === 'accepted') return true;
  return status === 'removed' && countsForRecovery(guardian, now);
}

/** Approvals a request needs: a strict majority of the guardians it snapshots (2 of 3, 3 of 4 or 5). */
export function recoveryThreshold(guardians: number): number {
  return Math.floor(guardians / 2) + 1;
}

export type GuardianChangeRefusal =
  | { code: 'recovery_request_open'; detail: string }
  | { code: 'recovery_guardian_is_owner'; detail: string }
  | { code: 'recovery_guardian_exists'; detail: string }
  | { code: 'recovery_guardians_full'; detail: string };

/** Why the owner may not invite this guardian now, if they may not. */
export function enrollmentRefusal(input: {
  owner_passport_id: string;
  guardian_passport_id: string;
  guardians: readonly GuardianFacts[];
  open_request: boolean;
  now: string;
}): GuardianChangeRefusal | undefined {
  const { now } = input;
  if (input.open_request) return changeWhileOpen();
  if (input.guardian_passport_id === input.owner_passport_id)
    return { code: 'recovery_guardian_is_owner', detail: 'The owner of a Passport cannot be its own guardian' };
  const placed = input.guardians.filter((guardian) => holdsPlace(guardian, now));
  if (placed.some((guardian) => guardian.guardian_passport_id === input.guardian_passport_id))
    return {
      code: 'recovery_guardian_exists',
      detail: 'This person is a guardian of the Passport already, or invited',
    };
  if (placed.length >= MAX_GUARDIANS)
    return {
      code: 'recovery_guardians_full',
      detail: `A Passport has at most ${MAX_GUARDIANS} guardians (invitations included): remove one first`,
    };
  return undefined;
}

export function changeWhileOpen(): GuardianChangeRefusal {
  return {
    code: 'recovery_request_open',
    detail: 'Guardians cannot change while a recovery request of the Passport is open: cancel it or let it end',
  };
}

export type AcceptanceRefusal =
  | { code: 'recovery_invitation_expired'; detail: string }
  | { code: 'recovery_guardian_already_accepted'; detail: string }
  | { code: 'recovery_guardian_removed'; detail: string };

/** Why this invitation cannot be accepted now, if it cannot. */
export function acceptanceRefusal(guardian: GuardianFacts, now: string): AcceptanceRefusal | undefined {
  switch (guardianStatusAt(guardian, now)) {
    case 'expired':
      return {
        code: 'recovery_invitation_expired',
        detail: `The invitation was to be accepted by ${guardian.accept_by}: the owner may invite again`,
      };
    case 'accepted':
      return { code: 'recovery_guardian_already_accepted', detail: 'The invitation is accepted already' };
    case 'removed':
      return { code: 'recovery_guardian_removed', detail: 'The owner removed this guardian' };
    default:
      return undefined;
  }
}

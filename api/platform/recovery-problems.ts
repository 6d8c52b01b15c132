import type { OpenRecoveryOutcome } from '../../services/recovery/requests';
import { Problem, type ProblemCode } from '../problem';
import { registrationProblem } from './webauthn-ceremony';

/** A refused outcome of the recovery services, as the one problem of its code (the service's detail when it gave one). */
export function recoveryProblem(outcome: {
  ok: false;
  code: ProblemCode;
  detail?: string;
  attempts_left?: number;
}): Problem {
  return new Problem(
    outcome.code,
    outcome.detail,
    outcome.attempts_left !== undefined ? { extensions: { attempts_left: outcome.attempts_left } } : {},
  );
}

export const PERSON_RESPONSES = {
  403: {
    description:
      'recovery_session_required: not the person’s own session (a delegation token or an access token); recovery_not_owner or recovery_not_the_guardian: another person',
  },
};

const CEREMONY_CODES = new Set(['challenge_unknown', 'challenge_expired', 'malformed_response', 'verification_failed']);

/** A refused opening: a recovery passkey's ceremony failure as the passkey ceremonies' problems, else its own. */
export function openingProblem(outcome: Extract<OpenRecoveryOutcome, { ok: false }>): Problem {
  if (outcome.code === 'credential_exists' || CEREMONY_CODES.has(outcome.code))
    return registrationProblem(outcome as Parameters<typeof registrationProblem>[0]);
  return recoveryProblem(outcome as { ok: false; code: ProblemCode; detail?: string });
}

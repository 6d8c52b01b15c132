import type { CeremonyFailure } from '../../services/identity/passkeys/ceremony';
import { Problem } from '../problem';

export const PASSKEY_TAGS = ['Passkeys'];

/** A ceremony's failure as its problem: a challenge problem, or a response that did not verify. */
export function ceremonyProblem(failure: CeremonyFailure): Problem {
  if (failure.code === 'challenge_unknown' || failure.code === 'challenge_expired')
    return new Problem('webauthn_challenge_invalid', failure.detail, { extensions: { reason: failure.code } });
  return new Problem('webauthn_response_invalid', failure.detail);
}

/** A registration's failure: a passkey registered already, or the ceremony's own failure. */
export function registrationProblem(failure: CeremonyFailure | { code: 'credential_exists'; detail: string }): Problem {
  return failure.code === 'credential_exists'
    ? new Problem('passkey_already_registered', failure.detail)
    : ceremonyProblem(failure);
}

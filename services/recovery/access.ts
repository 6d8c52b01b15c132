import type { HumanActor } from '../../domain/identity/human-acts';
import type { Principal } from '../identity/scopes';

export type PersonRefusal =
  | { ok: false; code: 'recovery_session_required'; detail: string }
  | { ok: false; code: 'recovery_not_owner' | 'recovery_not_the_guardian'; detail: string };

/**
 * The person a guardian act or an owner's act needs: their own session (a passkey or device key still active
 * signed it in), never a delegation token, an access token or a DID from a body.
 */
export function signedInPerson(principal: Principal): { ok: true; actor: HumanActor } | PersonRefusal {
  if (principal.kind !== 'session' || !principal.actor)
    return {
      ok: false,
      code: 'recovery_session_required',
      detail: `Guardians and owners act only in their own signed-in session (a ${principal.kind.replace(/_/g, ' ')} is not one)`,
    };
  const { passport_id, did, credential } = principal.actor;
  return { ok: true, actor: { passport_id, did, credential } };
}

/** The owner of the Passport, signed in. */
export function signedInOwner(
  principal: Principal,
  passportId: string,
): { ok: true; actor: HumanActor } | PersonRefusal {
  const person = signedInPerson(principal);
  if (!person.ok || person.actor.passport_id === passportId) return person;
  return { ok: false, code: 'recovery_not_owner', detail: `Only the owner of ${passportId}, signed in, may do this` };
}

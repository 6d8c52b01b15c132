import type { Knex } from 'knex';
import { findPassport, type PassportRow } from '../../db/passports';
import type { Principal } from '../identity/scopes';

export type PersonalActRefusal =
  | { ok: false; code: 'passport_not_found'; detail: string }
  | { ok: false; code: 'person_required' | 'actor_mismatch'; detail: string };

/**
 * An act a person does on their own Passport (consent, linking, delegating): the Passport is found in the
 * caller's organization only (another's answers 404), and the caller must be that person, signed in or by a
 * delegation token they hold themselves; an agent acting for them, or a credential that is no person, is 403.
 */
export async function ownPassportAct(
  db: Knex,
  principal: Principal,
  passportId: string,
): Promise<{ ok: true; passport: PassportRow } | PersonalActRefusal> {
  const passport = await findPassport(db, passportId, principal.organization_id);
  if (!passport || passport.type !== 'individual')
    return { ok: false, code: 'passport_not_found', detail: `No person’s Passport ${passportId}` };
  const actor = principal.actor;
  if (!actor || actor.delegation?.agent_did)
    return {
      ok: false,
      code: 'person_required',
      detail: 'Only the person themself, signed in (or with a delegation token they hold), does this',
    };
  if (actor.passport_id !== passportId)
    return { ok: false, code: 'actor_mismatch', detail: `The signed-in person is not the holder of ${passportId}` };
  return { ok: true, passport };
}

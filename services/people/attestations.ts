import type { Knex } from 'knex';
import type { Attestation } from '../../contracts/aggregates/attestation';
import { isLinkedEmployee } from '../../db/employees';
import { findPassport } from '../../db/passports';
import { ATTESTED_IDENTITY_TIER, recordAttestation, signAttestation } from '../identity/attestations/issue';
import { actorOf } from '../identity/passports/passports';
import type { PassportSettings } from '../identity/passports/settings';
import type { Principal } from '../identity/scopes';

export type AttestOutcome =
  | { ok: true; attestation: Attestation }
  | { ok: false; code: 'passport_not_found' | 'passport_not_linked' | 'organization_key_unavailable'; detail: string };

/**
 * An organization attests a skill of a person of it, signed by its key: the person must be linked to the
 * organization (an active employee, identity tier 1 at least), and the attestation raises the tier to 2.
 */
export async function attestPerson(
  deps: { db: Knex; settings: PassportSettings },
  principal: Principal,
  passportId: string,
  skill: string,
): Promise<AttestOutcome> {
  const passport = await findPassport(deps.db, passportId, principal.organization_id);
  if (!passport || passport.type !== 'individual')
    return { ok: false, code: 'passport_not_found', detail: `No person’s Passport ${passportId}` };
  if (!(await isLinkedEmployee(deps.db, passportId, principal.organization_id)))
    return {
      ok: false,
      code: 'passport_not_linked',
      detail: 'Only a person linked to the organization is attested by it',
    };
  const signed = await signAttestation(deps, {
    organization_id: principal.organization_id,
    subject: { passport_id: passportId, did: passport.did },
    skill,
    identity_tier: ATTESTED_IDENTITY_TIER,
    issued_by: principal.id,
  });
  if (!signed.ok) return { ok: false, code: 'organization_key_unavailable', detail: signed.detail };
  await deps.db.transaction((trx) =>
    recordAttestation(trx, signed.attestation, {
      actor: actorOf(principal),
      reasoning: `${principal.id} attested ${skill} of ${passport.did} for the organization`,
    }),
  );
  return { ok: true, attestation: signed.attestation };
}

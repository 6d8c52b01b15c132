import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import type { RecoveryGuardian } from '../../contracts/aggregates/recovery-guardian';
import { appendProvenance } from '../../db/ledger';
import { findPassport, lockPassport } from '../../db/passports';
import {
  findGuardian,
  findPersonByDid,
  guardiansOf,
  insertGuardian,
  updateGuardian,
} from '../../db/recovery-guardians';
import { hasOpenRecovery } from '../../db/recovery-requests';
import type { HumanActor } from '../../domain/identity/human-acts';
import {
  acceptanceRefusal,
  changeWhileOpen,
  countsForRecovery,
  enrollmentRefusal,
  guardianStatusAt,
  type AcceptanceRefusal,
  type GuardianChangeRefusal,
} from '../../domain/recovery/guardians';
import type { RecoveryMethod } from '../../domain/recovery/statuses';
import { guardianRecord, type GuardianStep } from '../../domain/recovery/steps';
import type { Mailer } from '../../lib/mail/transport';
import { SmsUnavailable, type SmsSender } from '../../lib/sms/sender';
import type { Principal } from '../identity/scopes';
import { signedInOwner, signedInPerson, type PersonRefusal } from './access';
import { inviteGuardian } from './notifications';
import type { RecoverySettings } from './settings';

export interface GuardianServiceDeps {
  db: Knex;
  mailer: Mailer;
  sms: SmsSender;
  settings: RecoverySettings;
}

type NotFound = { ok: false; code: 'passport_not_found' | 'recovery_guardian_not_found' | 'recovery_guardian_unknown' };
type MailRefusal = { ok: false; code: 'mail_unavailable' | 'sms_unavailable'; detail?: string };
export type GuardianOutcome =
  | { ok: true; guardian: RecoveryGuardian }
  | NotFound
  | MailRefusal
  | PersonRefusal
  | ({ ok: false } & (GuardianChangeRefusal | AcceptanceRefusal));

const after = (at: Date, seconds: number) => new Date(at.getTime() + seconds * 1000).toISOString();

/** A guardian as shown at `now`: an invitation past its window reads as expired. */
export function guardianAt(guardian: RecoveryGuardian, now: Date): RecoveryGuardian {
  return { ...guardian, status: guardianStatusAt(guardian, now.toISOString()) };
}

/** Records a change to a guardian with its provenance, in the transaction. */
async function recordChange(
  trx: Knex.Transaction,
  guardian: RecoveryGuardian,
  step: GuardianStep,
  by: HumanActor,
  at: Date,
): Promise<RecoveryGuardian> {
  const anchor = await appendProvenance(trx, {
    ...guardianRecord(guardian, step, by, at),
    organization_id: guardian.organization_id,
  });
  await updateGuardian(trx, guardian.guardian_id, { provenance_id: anchor.transaction_id });
  return { ...guardian, provenance_id: anchor.transaction_id };
}

/**
 * The owner, signed in, invites a person of the organization (by DID) to guard their Passport's recovery. The
 * invitation (mail or text) is sent inside the transaction: a guardian who cannot be told is not stored.
 */
export async function enrollGuardian(
  deps: GuardianServiceDeps,
  principal: Principal,
  passportId: string,
  body: { guardianId: string; recoveryMethod: RecoveryMethod; contact: string },
): Promise<GuardianOutcome> {
  const passport = await findPassport(deps.db, passportId, principal.organization_id);
  if (!passport) return { ok: false, code: 'passport_not_found' };
  const owner = signedInOwner(principal, passportId);
  if (!owner.ok) return owner;
  const person = await findPersonByDid(deps.db, principal.organization_id, body.guardianId);
  if (!person) return { ok: false, code: 'recovery_guardian_unknown' };
  if (body.recoveryMethod === 'email' && !deps.mailer.configured) return { ok: false, code: 'mail_unavailable' };
  if (body.recoveryMethod === 'sms' && !deps.sms.configured) return { ok: false, code: 'sms_unavailable' };
  const now = new Date();
  return storeAndInvite(deps, async (trx): Promise<GuardianOutcome> => {
    await lockPassport(trx, passportId);
    const refusal = enrollmentRefusal({
      owner_passport_id: passportId,
      guardian_passport_id: person.passport_id,
      guardians: await guardiansOf(trx, passportId),
      open_request: await hasOpenRecovery(trx, passportId),
      now: now.toISOString(),
    });
    if (refusal) return { ok: false, ...refusal };
    const guardian: RecoveryGuardian = {
      guardian_id: `rgd_${randomUUID()}`,
      organization_id: principal.organization_id,
      passport_id: passportId,
      guardian_passport_id: person.passport_id,
      guardian_did: person.did,
      recovery_method: body.recoveryMethod,
      contact: body.contact,
      status: 'invited',
      invited_at: now.toISOString(),
      accept_by: after(now, deps.settings.guardianAcceptWindowSeconds),
    };
    await insertGuardian(trx, guardian);
    const recorded = await recordChange(trx, guardian, 'invited', owner.actor, now);
    await inviteGuardian(
      { mailer: deps.mailer, sms: deps.sms, publicBaseUrl: deps.settings.publicBaseUrl },
      {
        to: guardian.contact,
        method: guardian.recovery_method,
        owner_did: passport.did,
        passport_id: passportId,
        guardian_id: guardian.guardian_id,
        accept_by: guardian.accept_by,
      },
    );
    return { ok: true, guardian: recorded };
  });
}

/** The enrollment's transaction; a text the provider did not take undoes it and answers sms_unavailable. */
async function storeAndInvite(
  deps: GuardianServiceDeps,
  enroll: (trx: Knex.Transaction) => Promise<GuardianOutcome>,
): Promise<GuardianOutcome> {
  try {
    return await deps.db.transaction(enroll);
  } catch (error) {
    if (!(error instanceof SmsUnavailable)) throw error;
    return { ok: false, code: 'sms_unavailable', detail: error.message };
  }
}

/** The invited person accepts, as their own signed-in Passport, within the window; they count after the delay. */
export async function acceptGuardianship(
  deps: GuardianServiceDeps,
  principal: Principal,
  passportId: string,
  guardianId: string,
): Promise<GuardianOutcome> {
  const person = signedInPerson(principal);
  if (!person.ok) return person;
  const now = new Date();
  return deps.db.transaction(async (trx): Promise<GuardianOutcome> => {
    await lockPassport(trx, passportId);
    const guardian = await findGuardian(trx, principal.organization_id, passportId, guardianId);
    if (!guardian) return { ok: false, code: 'recovery_guardian_not_found' };
    if (guardian.guardian_passport_id !== person.actor.passport_id)
      return {
        ok: false,
        code: 'recovery_not_the_guardian',
        detail: `The invitation is addressed to ${guardian.guardian_did}`,
      };
    if (await hasOpenRecovery(trx, passportId)) return { ok: false, ...changeWhileOpen() };
    const refusal = acceptanceRefusal(guardian, now.toISOString());
    if (refusal) return { ok: false, ...refusal };
    const changes = {
      status: 'accepted' as const,
      accepted_at: now.toISOString(),
      effective_at: after(now, deps.settings.guardianChangeDelaySeconds),
    };
    await updateGuardian(trx, guardianId, changes);
    return { ok: true, guardian: await recordChange(trx, { ...guardian, ...changes }, 'accepted', person.actor, now) };
  });
}

/** The owner removes a guardian: an invitation at once, an accepted guardian after the delay. */
export async function removeGuardian(
  deps: GuardianServiceDeps,
  principal: Principal,
  passportId: string,
  guardianId: string,
): Promise<GuardianOutcome> {
  const owner = signedInOwner(principal, passportId);
  if (!owner.ok) return owner;
  const now = new Date();
  return deps.db.transaction(async (trx): Promise<GuardianOutcome> => {
    await lockPassport(trx, passportId);
    const guardian = await findGuardian(trx, principal.organization_id, passportId, guardianId);
    if (!guardian) return { ok: false, code: 'recovery_guardian_not_found' };
    if (await hasOpenRecovery(trx, passportId)) return { ok: false, ...changeWhileOpen() };
    if (guardian.status === 'removed')
      return { ok: false, code: 'recovery_guardian_removed', detail: 'The guardian is removed already' };
    const changes = {
      status: 'removed' as const,
      removal_requested_at: now.toISOString(),
      removal_effective_at: countsForRecovery(guardian, now.toISOString())
        ? after(now, deps.settings.guardianChangeDelaySeconds)
        : now.toISOString(),
    };
    await updateGuardian(trx, guardianId, changes);
    return { ok: true, guardian: await recordChange(trx, { ...guardian, ...changes }, 'removed', owner.actor, now) };
  });
}

/** The Passport's guardians as the owner (or an administrator's token) sees them. */
export async function listGuardians(
  deps: GuardianServiceDeps,
  principal: Principal,
  passportId: string,
): Promise<{ ok: true; guardians: RecoveryGuardian[] } | NotFound | PersonRefusal> {
  const passport = await findPassport(deps.db, passportId, principal.organization_id);
  if (!passport) return { ok: false, code: 'passport_not_found' };
  if (principal.actor) {
    const owner = signedInOwner(principal, passportId);
    if (!owner.ok) return owner;
  }
  const now = new Date();
  return { ok: true, guardians: (await guardiansOf(deps.db, passportId)).map((g) => guardianAt(g, now)) };
}

import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import type { Consent } from '../../contracts/aggregates/consent';
import { insertConsent } from '../../db/consents';
import { findPassport } from '../../db/passports';
import { appendProvenance } from '../../db/ledger';
import { actorOf } from '../identity/passports/passports';
import type { Principal } from '../identity/scopes';
import { ownPassportAct, type PersonalActRefusal } from './own-passport';

export interface ConsentRequest {
  consentTimestamp: Date;
  description: string;
  capabilityEvidence?: string | Record<string, unknown> | undefined;
}

/**
 * A consent the person gives, as their own act: appended to their consent log and to the ledger in one
 * transaction (the ledger record's transaction id is kept with it). Nothing changes or removes it afterwards.
 */
export async function recordConsent(
  db: Knex,
  principal: Principal,
  passportId: string,
  request: ConsentRequest,
): Promise<{ ok: true; consent: Consent } | PersonalActRefusal> {
  const own = await ownPassportAct(db, principal, passportId);
  if (!own.ok) return own;
  const consent_id = `cns_${randomUUID()}`;
  const recorded_at = new Date();
  const credential = principal.actor!.delegation
    ? `delegation_token:${principal.actor!.delegation.token_id}`
    : `${principal.actor!.credential.type}:${principal.actor!.credential.id}`;
  const consent = await db.transaction(async (trx) => {
    const anchor = await appendProvenance(trx, {
      organization_id: own.passport.organization_id,
      entry: {
        subject_id: passportId,
        step_id: `consent:${consent_id}`,
        timestamp: recorded_at.toISOString(),
        actor: actorOf(principal),
        action: 'consent_recorded',
        input_data: {
          consent_timestamp: request.consentTimestamp.toISOString(),
          description: request.description,
          capability_evidence: request.capabilityEvidence ?? null,
        },
        output_data: { consent_id, recorded_with: credential },
        reasoning: `${own.passport.did} recorded a consent in their own consent log`,
      },
      events: [{ event: 'passport.consent_recorded', data: { passport_id: passportId, consent_id } }],
    });
    const row: Consent = {
      consent_id,
      passport_id: passportId,
      consent_timestamp: request.consentTimestamp,
      description: request.description,
      capability_evidence: request.capabilityEvidence ?? null,
      recorded_with: credential,
      transaction_id: anchor.transaction_id,
      recorded_at,
      organization_id: own.passport.organization_id,
    };
    await insertConsent(trx, row);
    return row;
  });
  return { ok: true, consent };
}

/**
 * Whose consent log a caller reads: a person their own (or an agent theirs, by their token), a credential
 * that is no person (an administrator's token) any of its organization's; another person's answers 404.
 */
export async function mayReadConsentLog(db: Knex, principal: Principal, passportId: string): Promise<boolean> {
  if (principal.actor && principal.actor.passport_id !== passportId) return false;
  const passport = await findPassport(db, passportId, principal.organization_id);
  return passport?.type === 'individual';
}

import { appendProvenance } from '../../../db/ledger';
import {
  findPassport,
  findPassportKey,
  insertPassportKey,
  listPassportKeys,
  lockPassport,
  retireActiveKeys,
  revokePassportKey,
  type PassportKeyRow,
} from '../../../db/passports';
import { didKeyOfJwk } from '../../../domain/identity/did';
import { createSecretBox } from '../../../lib/secret-box';
import { allowsCapability } from '../../../domain/identity/capabilities';
import { grants, type Principal } from '../scopes';
import { applyCredentialRevocations, revokeDelegationsOfCredential } from '../delegations/credential-revocations';
import type { RevocationRegistry } from '../delegations/revocations';
import { newServerKey, publishedKey } from './keys';
import {
  actorOf,
  organizationAdminRefusal,
  type OrganizationAdminRefusal,
  type PassportServiceDeps,
  type PassportWithKeys,
} from './passports';

export type RotateOutcome =
  | { ok: true; passport: PassportWithKeys; key: PassportKeyRow; retired: PassportKeyRow[] }
  | OrganizationAdminRefusal
  | { ok: false; code: 'passport_not_found' | 'passport_keys_on_device' | 'secrets_unavailable' };

/**
 * A new server key signs from now on; the keys it replaces are retired: published and verifying until
 * verify_until (what they signed has expired by then), never signing again.
 */
export async function rotatePassportKeys(
  deps: PassportServiceDeps,
  principal: Principal,
  passportId: string,
): Promise<RotateOutcome> {
  const passport = await findPassport(deps.db, passportId, principal.organization_id);
  if (!passport) return { ok: false, code: 'passport_not_found' };
  const refusal = organizationAdminRefusal(principal, passport.type);
  if (refusal) return refusal;
  if (passport.type === 'individual') return { ok: false, code: 'passport_keys_on_device' };
  const box = createSecretBox(deps.settings.secretKeys);
  if (!box.canSeal) return { ok: false, code: 'secrets_unavailable' };
  const key = await newServerKey(box, passportId);
  const now = new Date();
  const verifyUntil = new Date(now.getTime() + deps.settings.keyVerifyWindowSeconds * 1000);
  const retiredKids = await deps.db.transaction(async (trx) => {
    await lockPassport(trx, passportId);
    await insertPassportKey(trx, key, now);
    const retired = await retireActiveKeys(trx, passportId, key.kid, now, verifyUntil);
    await appendProvenance(trx, {
      entry: {
        subject_id: passportId,
        step_id: `key_rotated:${key.kid}`,
        timestamp: now.toISOString(),
        actor: actorOf(principal),
        action: 'passport_key_rotated',
        input_data: { principal: principal.id },
        output_data: {
          kid: key.kid,
          did_key: didKeyOfJwk(publishedKey(key).jwk),
          retired_kids: retired,
          verify_until: verifyUntil.toISOString(),
        },
        reasoning: `${principal.id} rotated the keys of ${passport.did}: ${key.kid} signs from now on; ${retired.join(', ') || 'no key'} verifies until ${verifyUntil.toISOString()}`,
      },
      events: [
        {
          event: 'passport.key_rotated',
          data: {
            passport_id: passportId,
            did: passport.did,
            kid: key.kid,
            retired_kids: retired,
            verify_until: verifyUntil.toISOString(),
          },
        },
      ],
    });
    return retired;
  });
  const keys = await listPassportKeys(deps.db, passportId);
  return {
    ok: true,
    passport: { passport, keys },
    key: keys.find((row) => row.kid === key.kid)!,
    retired: keys.filter((row) => retiredKids.includes(row.kid)),
  };
}

/** The refusal of a caller who is neither the person nor an administrator of people to revoke a person's key. */
export type PeopleAdminRefusal = { ok: false; code: 'insufficient_scope'; required_scope: 'people:enroll' };

/**
 * A person's keys are their credentials, and revoking one locks them out: only the person (a session of that
 * Passport) or an administrator of people (people:enroll, which platform:admin implies, as enrolling needs)
 * may, never platform:write alone. A session's or delegation token's grants are capabilities, never scopes.
 */
function personKeyRefusal(
  principal: Principal,
  passport: { passport_id: string; type: string },
): PeopleAdminRefusal | undefined {
  if (passport.type !== 'individual') return undefined;
  const actor = principal.actor;
  const permitted = actor
    ? (principal.kind === 'session' && actor.passport_id === passport.passport_id) ||
      allowsCapability(principal.scopes, 'people:enroll', actor.delegation?.risk_level ?? 'high')
    : grants(principal.scopes, 'people:enroll');
  return permitted ? undefined : { ok: false, code: 'insufficient_scope', required_scope: 'people:enroll' };
}

export type RevokeOutcome =
  | { ok: true; key: PassportKeyRow }
  | OrganizationAdminRefusal
  | PeopleAdminRefusal
  | { ok: false; code: 'passport_not_found' | 'passport_key_not_found' | 'passport_key_already_revoked' };

/**
 * A revoked key is unusable at once: it signs nothing more, what it signed no longer verifies, it leaves the
 * DID document and the JWKS, and a session signed in with it (a device key) ends, with every delegation
 * exchanged from such a session.
 */
export async function revokePassportKeyOf(
  deps: PassportServiceDeps & { revocations: RevocationRegistry },
  principal: Principal,
  passportId: string,
  kid: string,
  reason: string,
): Promise<RevokeOutcome> {
  const passport = await findPassport(deps.db, passportId, principal.organization_id);
  if (!passport) return { ok: false, code: 'passport_not_found' };
  const refusal = organizationAdminRefusal(principal, passport.type) ?? personKeyRefusal(principal, passport);
  if (refusal) return refusal;
  const now = new Date();
  const revoked = await deps.db.transaction(async (trx) => {
    await lockPassport(trx, passportId);
    const row = await revokePassportKey(trx, passportId, kid, reason, now);
    if (!row) return undefined;
    // A device key signs people in: the delegations exchanged from its sessions end with it.
    const delegations =
      row.source === 'device'
        ? await revokeDelegationsOfCredential(
            trx,
            { type: 'device_key', id: kid },
            { revoked_by: principal.actor?.did ?? principal.id, reason: `device key revoked: ${reason}`, at: now },
          )
        : [];
    await appendProvenance(trx, {
      entry: {
        subject_id: passportId,
        step_id: `key_revoked:${kid}`,
        timestamp: now.toISOString(),
        actor: actorOf(principal),
        action: 'passport_key_revoked',
        input_data: { principal: principal.id, reason },
        output_data: { kid, key_source: row.source, device_id: row.device_id },
        reasoning: `${principal.id} revoked the key ${kid} of ${passport.did}: ${reason}`,
      },
      events: [
        {
          event: 'passport.key_revoked',
          data: { passport_id: passportId, did: passport.did, kid, revoked_at: now.toISOString() },
        },
      ],
    });
    return { row, delegations };
  });
  if (revoked) {
    applyCredentialRevocations(deps.revocations, revoked.delegations);
    return { ok: true, key: revoked.row };
  }
  const key = await findPassportKey(deps.db, kid);
  return {
    ok: false,
    code: key?.passport_id === passportId ? 'passport_key_already_revoked' : 'passport_key_not_found',
  };
}

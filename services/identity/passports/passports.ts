import type { Knex } from 'knex';
import { appendProvenance } from '../../../db/ledger';
import {
  findOrganizationPassport,
  findPassport,
  findPassportKey,
  insertPassport,
  insertPassportKey,
  listPassportKeys,
  lockPassport,
  retireActiveKeys,
  revokePassportKey,
  type PassportKeyRow,
  type PassportWithOrganization,
} from '../../../db/passports';
import { didKeyOfJwk, passportDidWeb } from '../../../domain/identity/did';
import type { ProvenanceActor } from '../../../domain/provenance/records';
import { ORCH_CORE_DID } from '../../../domain/provenance/records';
import { createSecretBox } from '../../../lib/secret-box';
import { grants, type Principal } from '../scopes';
import { applyCredentialRevocations, revokeDelegationsOfCredential } from '../delegations/credential-revocations';
import type { RevocationRegistry } from '../delegations/revocations';
import { newServerKey, publishedKey, verifyingKeys } from './keys';
import type { PassportSettings } from './settings';

export interface PassportServiceDeps {
  db: Knex;
  settings: PassportSettings;
}

/** A Passport as its services return it: the row, and every key it ever had, oldest first. */
export interface PassportWithKeys {
  passport: PassportWithOrganization;
  keys: PassportKeyRow[];
}

/** The Passport (or the deployment) a provenance record names as having acted. */
export function actorOf(principal: Principal): ProvenanceActor {
  return principal.actor ? { type: 'human', did: principal.actor.did } : { type: 'orch_core', did: ORCH_CORE_DID };
}

/** Capabilities as the Passport read names them: capability URIs (a bare name is capability://<name>). */
export function capabilityUris(capabilities: readonly string[]): string[] {
  return [
    ...new Set(
      capabilities.map((capability) =>
        capability.startsWith('capability://') ? capability : `capability://${capability}`,
      ),
    ),
  ];
}

/** The organization's own Passport is its identity: creating it or changing its keys needs platform:admin. */
export type OrganizationAdminRefusal = { ok: false; code: 'insufficient_scope'; required_scope: 'platform:admin' };

function organizationAdminRefusal(principal: Principal, passportType: string): OrganizationAdminRefusal | undefined {
  if (passportType !== 'organization' || grants(principal.scopes, 'platform:admin')) return undefined;
  return { ok: false, code: 'insufficient_scope', required_scope: 'platform:admin' };
}

export interface NewServerPassport {
  type: 'agent' | 'organization';
  name: string;
  metadata: Record<string, unknown>;
  capabilities: string[];
}

export type CreateOutcome =
  | { ok: true; created: boolean; passport: PassportWithKeys }
  | OrganizationAdminRefusal
  | { ok: false; code: 'secrets_unavailable' }
  | { ok: false; code: 'organization_passport_exists'; passport_id: string };

/**
 * An agent's or an organization's Passport: its did:web, an Ed25519 key pair made here (the private key
 * sealed at rest), and its provenance record, in one transaction. passportId derives from the caller's
 * Idempotency-Key when it sent one, so a retry finds the first Passport.
 */
export async function createServerPassport(
  deps: PassportServiceDeps,
  principal: Principal,
  passportId: string,
  body: NewServerPassport,
): Promise<CreateOutcome> {
  const refusal = organizationAdminRefusal(principal, body.type);
  if (refusal) return refusal;
  const existing = await findPassport(deps.db, passportId, principal.organization_id);
  if (existing)
    return {
      ok: true,
      created: false,
      passport: { passport: existing, keys: await listPassportKeys(deps.db, passportId) },
    };
  const box = createSecretBox(deps.settings.secretKeys);
  if (!box.canSeal) return { ok: false, code: 'secrets_unavailable' };
  if (body.type === 'organization') {
    const organizationPassport = await findOrganizationPassport(deps.db, principal.organization_id);
    if (organizationPassport)
      return { ok: false, code: 'organization_passport_exists', passport_id: organizationPassport.passport_id };
  }

  const key = await newServerKey(box, passportId);
  const did = passportDidWeb(deps.settings.publicBaseUrl, passportId);
  const now = new Date();
  const created = await deps.db.transaction(async (trx) => {
    const row = {
      passport_id: passportId,
      did,
      type: body.type,
      name: body.name,
      organization_id: principal.organization_id,
      metadata: body.metadata,
      capabilities: capabilityUris(body.capabilities),
      created_at: now,
    };
    if (!(await insertPassport(trx, row))) return false;
    await insertPassportKey(trx, key, now);
    await appendProvenance(trx, {
      entry: {
        subject_id: passportId,
        step_id: 'created',
        timestamp: now.toISOString(),
        actor: actorOf(principal),
        action: 'passport_created',
        input_data: { principal: principal.id, type: body.type, name: body.name },
        output_data: {
          did,
          organization_id: principal.organization_id,
          kid: key.kid,
          did_key: didKeyOfJwk(publishedKey(key).jwk),
          key_source: 'server',
        },
        reasoning: `${principal.id} created the ${body.type} Passport ${did}; its key was generated by the service and is held sealed`,
      },
      events: [
        {
          event: 'passport.created',
          data: {
            passport_id: passportId,
            did,
            type: body.type,
            organization_id: principal.organization_id,
            kid: key.kid,
          },
        },
      ],
    });
    return true;
  });
  if (!created) {
    // A concurrent request took the id (a retry with the same key) or the organization's one Passport.
    const raced = await findPassport(deps.db, passportId, principal.organization_id);
    if (raced)
      return {
        ok: true,
        created: false,
        passport: { passport: raced, keys: await listPassportKeys(deps.db, passportId) },
      };
    const organizationPassport = await findOrganizationPassport(deps.db, principal.organization_id);
    return { ok: false, code: 'organization_passport_exists', passport_id: organizationPassport?.passport_id ?? '' };
  }
  return { ok: true, created: true, passport: (await readPassport(deps.db, passportId, principal.organization_id))! };
}

export async function readPassport(
  db: Knex,
  passportId: string,
  organizationId?: string,
): Promise<PassportWithKeys | undefined> {
  const passport = await findPassport(db, passportId, organizationId);
  return passport ? { passport, keys: await listPassportKeys(db, passportId) } : undefined;
}

/** The Passport and the keys it publishes (DID document, JWKS): those whose signatures verify at `now`. */
export async function readPublishedKeys(db: Knex, passportId: string, now: Date, organizationId?: string) {
  const found = await readPassport(db, passportId, organizationId);
  return found ? { passport: found.passport, keys: verifyingKeys(found.keys, now).map(publishedKey) } : undefined;
}

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

export type RevokeOutcome =
  | { ok: true; key: PassportKeyRow }
  | OrganizationAdminRefusal
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
  const refusal = organizationAdminRefusal(principal, passport.type);
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

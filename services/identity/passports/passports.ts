import type { Knex } from 'knex';
import {
  findOrganizationPassport,
  findPassport,
  insertPassport,
  insertPassportKey,
  listPassportKeys,
  type NewPassportKey,
  type PassportKeyRow,
  type PassportWithOrganization,
} from '../../../db/passports';
import { didKeyOfJwk, passportDidWeb } from '../../../domain/identity/did';
import type { ProvenanceActor } from '../../../domain/provenance/records';
import { ORCH_CORE_DID } from '../../../domain/provenance/records';
import { createSecretBox } from '../../../lib/secret-box';
import { grants, type Principal } from '../scopes';
import { recordPassportCreated } from './creation-record';
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

export function organizationAdminRefusal(
  principal: Principal,
  passportType: string,
): OrganizationAdminRefusal | undefined {
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
  const existing = await foundAlready(deps.db, passportId, principal.organization_id);
  if (existing) return existing;
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
  const created = await deps.db.transaction((trx) =>
    insertServerPassport(trx, principal, { passportId, did, key, body, now }),
  );
  if (!created) {
    // A concurrent request took the id (a retry with the same key) or the organization's one Passport.
    const raced = await foundAlready(deps.db, passportId, principal.organization_id);
    if (raced) return raced;
    const organizationPassport = await findOrganizationPassport(deps.db, principal.organization_id);
    return { ok: false, code: 'organization_passport_exists', passport_id: organizationPassport?.passport_id ?? '' };
  }
  return { ok: true, created: true, passport: (await readPassport(deps.db, passportId, principal.organization_id))! };
}

/** The Passport with this id when it exists already (a retry with the same Idempotency-Key finds the first). */
async function foundAlready(
  db: Knex,
  passportId: string,
  organizationId: string,
): Promise<Extract<CreateOutcome, { ok: true }> | undefined> {
  const existing = await findPassport(db, passportId, organizationId);
  if (!existing) return undefined;
  return { ok: true, created: false, passport: { passport: existing, keys: await listPassportKeys(db, passportId) } };
}

/** In one transaction: the Passport, its key and their provenance; false when the id or the organization's one Passport is taken. */
async function insertServerPassport(
  trx: Knex.Transaction,
  principal: Principal,
  made: { passportId: string; did: string; key: NewPassportKey; body: NewServerPassport; now: Date },
): Promise<boolean> {
  const { passportId, did, key, body, now } = made;
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
  const created = {
    passport_id: passportId,
    did,
    type: body.type,
    organization_id: principal.organization_id,
    kid: key.kid,
    did_key: didKeyOfJwk(publishedKey(key).jwk),
    key_source: 'server' as const,
  };
  await recordPassportCreated(trx, created, {
    actor: actorOf(principal),
    input_data: { principal: principal.id, type: body.type, name: body.name },
    reasoning: `${principal.id} created the ${body.type} Passport ${did}; its key was generated by the service and is held sealed`,
    at: now,
  });
  return true;
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

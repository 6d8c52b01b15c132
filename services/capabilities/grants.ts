import type { Knex } from 'knex';
import { randomUUID } from 'node:crypto';
import type { CapabilityGrant } from '../../contracts/aggregates/capability';
import { definedNames, impliedByHeld } from '../../db/capabilities';
import { findGrant, insertGrants, liveGrantsOf, revokeGrant } from '../../db/capability-grants';
import { findCompletion } from '../../db/courses';
import { findOrganizationPassport, findPassport } from '../../db/passports';
import { capabilityUri, ownCapabilityName } from '../../domain/capabilities/uris';
import type { Principal } from '../identity/scopes';
import { orgSegments } from './definitions';

export interface GrantInput {
  agentDID?: string | undefined;
  personDID?: string | undefined;
  capabilities: string[];
  weight: number;
  expiresAt?: string | undefined;
  issuerPassportId?: string | undefined;
  evidence?: { courseCompletionId: string } | undefined;
}

export type GrantOutcome =
  | { ok: true; grants: CapabilityGrant[] }
  | { ok: false; code: 'capability_not_defined' | 'evidence_mismatch' | 'grant_expiry_past'; detail: string }
  | { ok: false; code: 'agent_passport_not_found' | 'issuer_passport_not_found' | 'course_completion_not_found' }
  | { ok: false; code: 'issuer_passport_missing'; detail: string };

/** The Passport that issues the grant and signs its proofs: the one named (an agent or organization Passport), or the organization's own. */
async function issuerOf(db: Knex, principal: Principal, passportId: string | undefined) {
  const org = principal.organization_id;
  const passport = passportId ? await findPassport(db, passportId, org) : await findOrganizationPassport(db, org);
  return passport && passport.type !== 'individual' ? passport : undefined;
}

/** Grants each capability to the agent or person, all in one statement or none. */
export async function grantCapabilities(db: Knex, principal: Principal, input: GrantInput): Promise<GrantOutcome> {
  const org = principal.organization_id;
  const segments = await orgSegments(db, org);
  const names = input.capabilities.map((uri) => ownCapabilityName(uri, segments.own));
  const defined = await definedNames(
    db,
    org,
    names.filter((name): name is string => name !== undefined),
  );
  const undefinedUris = input.capabilities.filter((_, index) => !defined.has(names[index] ?? ''));
  if (undefinedUris.length > 0)
    return {
      ok: false,
      code: 'capability_not_defined',
      detail: `Not defined in your organization: ${undefinedUris.join(', ')}`,
    };
  const now = new Date();
  if (input.expiresAt && Date.parse(input.expiresAt) <= now.getTime())
    return { ok: false, code: 'grant_expiry_past', detail: `expiresAt ${input.expiresAt} has passed` };
  const subjectDid = (input.agentDID ?? input.personDID)!;
  if (input.agentDID) {
    const agent: unknown = await db('passports')
      .where({ organization_id: org, did: input.agentDID, type: 'agent' })
      .first('passport_id');
    if (!agent) return { ok: false, code: 'agent_passport_not_found' };
  }
  const issuer = await issuerOf(db, principal, input.issuerPassportId);
  if (!issuer && input.issuerPassportId) return { ok: false, code: 'issuer_passport_not_found' };
  if (!issuer)
    return {
      ok: false,
      code: 'issuer_passport_missing',
      detail:
        'Your organization has no organization Passport to issue grants; create one, or name an agent Passport as issuerPassportId',
    };
  if (input.evidence) {
    const completion = await findCompletion(db, org, input.evidence.courseCompletionId);
    if (!completion) return { ok: false, code: 'course_completion_not_found' };
    const taught = new Set(completion.capabilities.map((uri) => ownCapabilityName(uri, segments.own)));
    if (completion.subject_did !== subjectDid || names.some((name) => !taught.has(name)))
      return {
        ok: false,
        code: 'evidence_mismatch',
        detail: 'The course completion is another subject’s, or its course does not teach every granted capability',
      };
  }
  const grants: CapabilityGrant[] = names.map((name) => ({
    grant_id: `cgr_${randomUUID()}`,
    organization_id: org,
    capability_id: capabilityUri(segments.preferred, name!),
    capability_name: name!,
    subject_type: input.agentDID ? 'agent' : 'person',
    subject_did: subjectDid,
    weight: input.weight,
    issuer_did: issuer.did,
    issuer_passport_id: issuer.passport_id,
    evidence: input.evidence ? { course_completion_id: input.evidence.courseCompletionId } : null,
    source: 'api',
    created_by: principal.id,
    created_at: now.toISOString(),
    expires_at: input.expiresAt ? new Date(input.expiresAt).toISOString() : null,
    revoked_at: null,
    revoked_by: null,
    revoke_reason: null,
  }));
  await db.transaction((trx) => insertGrants(trx, grants));
  return { ok: true, grants };
}

export type RevokeOutcome =
  { ok: true; grant: CapabilityGrant; revoked_now: boolean } | { ok: false; code: 'grant_not_found' };

/** Revokes a grant at once: it never matches nor proves again. Revoking again answers the first revocation. */
export async function revokeCapabilityGrant(
  db: Knex,
  principal: Principal,
  grantId: string,
  reason: string | undefined,
): Promise<RevokeOutcome> {
  const org = principal.organization_id;
  const revokedNow = await revokeGrant(db, org, grantId, {
    by: principal.id,
    reason: reason ?? null,
    at: new Date().toISOString(),
  });
  const grant = await findGrant(db, org, grantId);
  return grant ? { ok: true, grant, revoked_now: revokedNow } : { ok: false, code: 'grant_not_found' };
}

export interface HeldCapability {
  capability_id: string;
  weight: number;
  grant_id: string;
  issuer_did: string;
  expires_at: string | null;
  /** The held capability it comes from when implied; null when granted directly. */
  implied_by: string | null;
}

/**
 * What a DID holds now: its live grants, and what they imply (the organization's closure of implications,
 * read for the granted names only), the strongest grant for each capability.
 */
export async function heldCapabilities(db: Knex, organizationId: string, did: string): Promise<HeldCapability[]> {
  const now = new Date().toISOString();
  const [grants, segments] = await Promise.all([
    liveGrantsOf(db, organizationId, did, now),
    orgSegments(db, organizationId),
  ]);
  const implied = await impliedByHeld(db, organizationId, [...new Set(grants.map((grant) => grant.capability_name))]);
  const held = new Map<string, HeldCapability>();
  for (const grant of grants)
    for (const name of [grant.capability_name, ...(implied.get(grant.capability_name) ?? [])]) {
      const current = held.get(name);
      const direct = name === grant.capability_name;
      if (current && (current.weight > grant.weight || (current.weight === grant.weight && !current.implied_by)))
        continue;
      held.set(name, {
        capability_id: capabilityUri(segments.preferred, name),
        weight: grant.weight,
        grant_id: grant.grant_id,
        issuer_did: grant.issuer_did,
        expires_at: grant.expires_at,
        implied_by: direct ? null : grant.capability_id,
      });
    }
  return [...held.values()].sort((a, b) => a.capability_id.localeCompare(b.capability_id));
}

export async function passportCapabilities(db: Knex, principal: Principal, passportId: string) {
  const passport = await findPassport(db, passportId, principal.organization_id);
  if (!passport) return undefined;
  return {
    passport,
    capabilities: await heldCapabilities(db, principal.organization_id, passport.did),
  };
}

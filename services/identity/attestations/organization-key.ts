import type { Knex } from 'knex';
import { findOrganization } from '../../../db/organizations';
import { findOrganizationPassport, insertPassport, insertPassportKey } from '../../../db/passports';
import { didKeyOfJwk, passportDidWeb } from '../../../domain/identity/did';
import { ORCH_CORE_DID } from '../../../domain/provenance/records';
import { createSecretBox } from '../../../lib/secret-box';
import { recordPassportCreated } from '../passports/creation-record';
import { newServerKey, publishedKey } from '../passports/keys';
import type { PassportSettings } from '../passports/settings';

export type OrganizationSigner =
  | { ok: true; passport_id: string; did: string }
  | { ok: false; code: 'secrets_unavailable' | 'organization_not_found' };

/**
 * The organization Passport whose key signs the organization's attestations. An organization that has none
 * yet gets it here, as POST /v1/passports would make it (a did:web, an Ed25519 key sealed at rest, its
 * provenance record), so linking its first person needs no step of its own.
 */
export async function organizationSigner(
  deps: { db: Knex; settings: PassportSettings },
  organizationId: string,
): Promise<OrganizationSigner> {
  const existing = await findOrganizationPassport(deps.db, organizationId);
  if (existing) return { ok: true, passport_id: existing.passport_id, did: existing.did };
  const organization = await findOrganization(deps.db, organizationId);
  if (!organization) return { ok: false, code: 'organization_not_found' };
  const box = createSecretBox(deps.settings.secretKeys);
  if (!box.canSeal) return { ok: false, code: 'secrets_unavailable' };
  const passportId = `pp_org_${organizationId}`;
  const did = passportDidWeb(deps.settings.publicBaseUrl, passportId);
  const key = await newServerKey(box, passportId);
  const now = new Date();
  await deps.db.transaction(async (trx) => {
    const row = { passport_id: passportId, did, type: 'organization' as const, name: organization.name };
    const created = { ...row, organization_id: organizationId, metadata: {}, capabilities: [], created_at: now };
    // Lost to a concurrent first link: the organization's one Passport exists, and is read below.
    if (!(await insertPassport(trx, created))) return;
    await insertPassportKey(trx, key, now);
    const made = { ...row, organization_id: organizationId, kid: key.kid, key_source: 'server' as const };
    await recordPassportCreated(
      trx,
      { ...made, did_key: didKeyOfJwk(publishedKey(key).jwk) },
      {
        actor: { type: 'orch_core', did: ORCH_CORE_DID },
        input_data: { organization_id: organizationId, purpose: 'attestations' },
        reasoning: `The organization ${organization.org_did} attests its people; its Passport was made to sign for it`,
        at: now,
      },
    );
  });
  const passport = await findOrganizationPassport(deps.db, organizationId);
  return passport
    ? { ok: true, passport_id: passport.passport_id, did: passport.did }
    : { ok: false, code: 'organization_not_found' };
}

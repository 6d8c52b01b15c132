import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import type { Attestation } from '../../../contracts/aggregates/attestation';
import { appendProvenance } from '../../../db/ledger';
import { insertAttestation, raiseIdentityTier } from '../../../db/passport-attestations';
import type { ProvenanceActor } from '../../../domain/provenance/records';
import { signAsPassport } from '../passports/signing';
import type { PassportSettings } from '../passports/settings';
import { organizationSigner } from './organization-key';

/** The JOSE typ of an attestation: a verifier refuses any other token signed by the same key. */
export const ATTESTATION_TOKEN_TYPE = 'attestation+jwt';

/** What completing an organization link attests, and the tier it gives; an attestation of a skill gives 2. */
export const MEMBERSHIP_SKILL = 'organization-membership';
export const LINKED_IDENTITY_TIER = 1;
export const ATTESTED_IDENTITY_TIER = 2;

export interface AttestationRequest {
  organization_id: string;
  subject: { passport_id: string; did: string };
  skill: string;
  identity_tier: number;
  issued_by: string;
}

export type SignedAttestation =
  | { ok: true; attestation: Attestation }
  | {
      ok: false;
      code: 'secrets_unavailable' | 'organization_not_found' | 'organization_key_unavailable';
      detail: string;
    };

/**
 * An attestation signed by the organization Passport's current key: a JWT (typ attestation+jwt) whose jti,
 * sub, skill and iat are the attestation's id, subject, skill and timestamp. It lives as long as a rotated-out
 * key still verifies (PASSPORT_KEY_VERIFY_WINDOW_SECONDS), so it verifies against the DID document until it expires.
 */
export async function signAttestation(
  deps: { db: Knex; settings: PassportSettings },
  request: AttestationRequest,
): Promise<SignedAttestation> {
  const signer = await organizationSigner(deps, request.organization_id);
  if (!signer.ok) return { ...signer, detail: `The organization cannot sign (${signer.code})` };
  const attestation_id = `att_${randomUUID()}`;
  const timestamp = new Date(Math.floor(Date.now() / 1000) * 1000);
  const ttlSeconds = deps.settings.keyVerifyWindowSeconds;
  const claims = {
    jti: attestation_id,
    sub: request.subject.did,
    skill: request.skill,
    identity_tier: request.identity_tier,
    organization_id: request.organization_id,
  };
  const signed = await signAsPassport(deps, signer.passport_id, claims, {
    ttlSeconds,
    typ: ATTESTATION_TOKEN_TYPE,
    now: timestamp,
  });
  if (!signed.ok) return { ok: false, code: 'organization_key_unavailable', detail: signed.detail };
  return {
    ok: true,
    attestation: {
      attestation_id,
      skill: request.skill,
      issuer_did: signer.did,
      timestamp,
      passport_id: request.subject.passport_id,
      subject_did: request.subject.did,
      organization_id: request.organization_id,
      identity_tier: request.identity_tier,
      kid: signed.kid,
      expires_at: new Date(timestamp.getTime() + ttlSeconds * 1000),
      proof: signed.token,
      issued_by: request.issued_by,
    },
  };
}

/** In the caller's transaction: the attestation, the subject's raised tier, and its ledger record and event. */
export async function recordAttestation(
  trx: Knex.Transaction,
  attestation: Attestation,
  how: { actor: ProvenanceActor; reasoning: string },
): Promise<void> {
  await insertAttestation(trx, attestation);
  await raiseIdentityTier(trx, attestation.passport_id, attestation.identity_tier);
  const { attestation_id, passport_id, skill, issuer_did, organization_id, identity_tier, kid } = attestation;
  await appendProvenance(trx, {
    organization_id,
    entry: {
      subject_id: passport_id,
      step_id: `attestation:${attestation_id}`,
      timestamp: attestation.timestamp.toISOString(),
      actor: how.actor,
      action: 'passport_attested',
      input_data: { skill, issued_by: attestation.issued_by },
      output_data: { attestation_id, issuer: issuer_did, kid, identity_tier, subject: attestation.subject_did },
      reasoning: how.reasoning,
    },
    events: [
      { event: 'passport.attested', data: { passport_id, attestation_id, skill, issuer: issuer_did, identity_tier } },
    ],
  });
}

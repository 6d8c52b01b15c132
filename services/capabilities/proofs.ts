import { decodeJwt } from 'jose';
import type { Knex } from 'knex';
import { randomUUID } from 'node:crypto';
import type { CapabilityGrant } from '../../contracts/aggregates/capability';
import { findGrant, insertProof, type ProofRow } from '../../db/capability-grants';
import { CAPABILITY_PROOF_TYP, proofClaimsOf, proofRefusal, type ProofClaims } from '../../domain/capabilities/proofs';
import { signAsPassport, verifyPassportSignature, type PassportSigningDeps } from '../identity/passports/signing';
import type { Principal } from '../identity/scopes';
import { findOwnDefinition } from './definitions';

export type IssueProofOutcome =
  | { ok: true; proof: string; kid: string; grant: CapabilityGrant; expires_at: string }
  | { ok: false; code: 'grant_not_found' }
  | { ok: false; code: 'grant_not_live' | 'proof_not_signed'; detail: string };

/**
 * A proof of a live grant for one task, signed by the issuing Passport's current key. It lives until the grant
 * expires or the key verify window ends, whichever is first.
 */
export async function issueCapabilityProof(
  deps: PassportSigningDeps,
  principal: Principal,
  grantId: string,
  taskId: string | undefined,
): Promise<IssueProofOutcome> {
  const grant = await findGrant(deps.db, principal.organization_id, grantId);
  if (!grant) return { ok: false, code: 'grant_not_found' };
  const now = new Date();
  const untilExpiry = grant.expires_at ? Math.floor((Date.parse(grant.expires_at) - now.getTime()) / 1000) : Infinity;
  if (grant.revoked_at || untilExpiry <= 0)
    return {
      ok: false,
      code: 'grant_not_live',
      detail: `Grant ${grantId} is ${grant.revoked_at ? 'revoked' : 'expired'}`,
    };
  const claims: ProofClaims = {
    sub: grant.subject_did,
    cap: grant.capability_id,
    grant_id: grant.grant_id,
    task_id: taskId ?? null,
    weight: grant.weight,
  };
  const ttlSeconds = Math.min(untilExpiry, deps.settings.keyVerifyWindowSeconds);
  const signed = await signAsPassport(
    deps,
    grant.issuer_passport_id ?? '',
    { ...claims },
    {
      ttlSeconds,
      typ: CAPABILITY_PROOF_TYP,
      now,
    },
  );
  if (!signed.ok) return { ok: false, code: 'proof_not_signed', detail: signed.detail };
  return {
    ok: true,
    proof: signed.token,
    kid: signed.kid,
    grant,
    expires_at: new Date(Math.floor(now.getTime() / 1000) * 1000 + ttlSeconds * 1000).toISOString(),
  };
}

export type ProofVerification =
  | { valid: true; claims: ProofClaims; grant: CapabilityGrant; issuer: string; kid: string }
  | { valid: false; code: string; reason: string };

/**
 * Verifies a proof as a relying party would offline: the signature by a key the issuer's DID document
 * publishes (a revoked key's never verifies), then the grant (still live, the same subject) and the task.
 */
export async function verifyCapabilityProof(
  db: Knex,
  principal: Principal,
  request: { agentDid: string; proof: string; taskId?: string | undefined },
): Promise<ProofVerification> {
  const signature = await verifyPassportSignature(db, request.proof, { typ: CAPABILITY_PROOF_TYP });
  if (!signature.ok && signature.reason.includes('ERR_JWT_EXPIRED'))
    return expiredProof(db, principal.organization_id, request.proof);
  if (!signature.ok) return { valid: false, code: 'signature_invalid', reason: signature.reason };
  const claims = proofClaimsOf(signature.payload);
  if (!claims)
    return { valid: false, code: 'malformed_proof', reason: 'The proof lacks sub, cap, grant_id, task_id or weight' };
  const grant = await findGrant(db, principal.organization_id, claims.grant_id);
  const issuer = signature.payload.iss ?? '';
  const refused = proofRefusal(claims, {
    grant,
    issuer_did: issuer,
    agent_did: request.agentDid,
    task_id: request.taskId,
    now: new Date().toISOString(),
  });
  if (refused) return { valid: false, ...refused };
  return { valid: true, claims, grant: grant!, issuer, kid: signature.kid };
}

/** A proof past its exp: its grant's expiry (then the grant is named as expired), or its key's verify window. */
async function expiredProof(db: Knex, organizationId: string, proof: string): Promise<ProofVerification> {
  const claims = proofClaimsOf(decodeJwt(proof));
  const grant = claims && (await findGrant(db, organizationId, claims.grant_id));
  if (grant?.expires_at && Date.parse(grant.expires_at) <= Date.now())
    return { valid: false, code: 'grant_expired', reason: `The grant expired at ${grant.expires_at}` };
  return { valid: false, code: 'proof_expired', reason: 'The proof outlived its signing key’s verify window' };
}

export type SubmitProofOutcome =
  | { ok: true; proof: ProofRow }
  | { ok: false; code: 'capability_proof_invalid'; detail: string }
  | { ok: false; code: 'grant_not_found' };

/** Records an agent's proof of a skill after verifying it: its subject must be the agent, its capability the skill. */
export async function submitSkillProof(
  db: Knex,
  principal: Principal,
  body: { agentId: string; skillId: string; proofDocument: string },
): Promise<SubmitProofOutcome> {
  const verified = await verifyCapabilityProof(db, principal, { agentDid: body.agentId, proof: body.proofDocument });
  if (!verified.valid && verified.code === 'grant_not_found') return { ok: false, code: 'grant_not_found' };
  if (!verified.valid) return { ok: false, code: 'capability_proof_invalid', detail: verified.reason };
  const skill = await findOwnDefinition(db, principal.organization_id, body.skillId);
  if (!skill || skill.capability_name !== verified.grant.capability_name)
    return {
      ok: false,
      code: 'capability_proof_invalid',
      detail: `The proof is for ${verified.claims.cap}, not ${body.skillId}`,
    };
  const proof: ProofRow = {
    proof_id: `cpf_${randomUUID()}`,
    organization_id: principal.organization_id,
    grant_id: verified.grant.grant_id,
    agent_did: body.agentId,
    skill_id: verified.grant.capability_id,
    task_id: verified.claims.task_id,
    kid: verified.kid,
    proof_document: body.proofDocument,
    submitted_by: principal.id,
    created_at: new Date().toISOString(),
  };
  await insertProof(db, proof);
  return { ok: true, proof };
}

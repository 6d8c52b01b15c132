import type { Knex } from 'knex';
import { findProof, type ProofRow } from '../../db/capability-grants';
import { issueCapabilityProof, submitSkillProof, verifyCapabilityProof } from '../../services/capabilities/proofs';
import { verifySkills } from '../../services/capabilities/skills';
import type { PassportSigningDeps } from '../../services/identity/passports/signing';
import { Problem } from '../problem';
import type { ApiBuilder } from '../route';
import { routeGroup, type RouteGroup } from '../route-group';
import { GrantParamsSchema } from '../schemas/capability-grants';
import {
  IssueProofSchema,
  IssuedProofSchema,
  ProofParamsSchema,
  ProofVerificationSchema,
  SkillProofSchema,
  SkillVerificationsSchema,
  SubmitSkillProofSchema,
  VerifyCapabilityProofSchema,
  VerifySkillsSchema,
} from '../schemas/capability-proofs';

const proofView = (row: ProofRow) => ({
  proofId: row.proof_id,
  agentId: row.agent_did,
  skillId: row.skill_id,
  grantId: row.grant_id,
  taskId: row.task_id,
  kid: row.kid,
  createdAt: row.created_at,
});

/** Proofs of grants (issue, submit, read, verify) and skill verification. */
export function registerCapabilityProofRoutes(api: ApiBuilder, deps: PassportSigningDeps): void {
  const proofs = routeGroup(api, { tags: ['Capabilities'], auth: 'platform:write', rateLimit: 'default' });
  registerIssue(proofs, deps);
  registerSubmit(proofs, deps.db);
  proofs.get({
    path: '/v1/capability-proofs/{proof_id}',
    operationId: 'getSkillProof',
    summary: 'Read a submitted skill proof',
    auth: 'platform:read',
    params: ProofParamsSchema,
    found: { description: 'The proof as recorded', schema: SkillProofSchema },
    missing: { code: 'capability_proof_not_found' },
    find: ({ params, principal }) => findProof(deps.db, principal.organization_id, params.proof_id),
    view: proofView,
  });
  registerVerify(proofs, deps.db);
  registerVerifySkills(proofs, deps.db);
}

function registerIssue(proofs: RouteGroup, deps: PassportSigningDeps): void {
  proofs.route({
    method: 'post',
    path: '/v1/capability-grants/{grant_id}/proofs',
    operationId: 'issueCapabilityProof',
    summary: 'Issue a proof of a grant for a task',
    description:
      'A JWT (typ capability-proof+jwt, EdDSA) signed by the issuing Passport’s active key, with sub (the holder’s DID), cap, grant_id, task_id ' +
      'and weight; it verifies offline against the issuer’s DID document, and lives until the grant expires or the key verify window ends.',
    auth: 'platform:admin',
    request: { params: GrantParamsSchema, body: IssueProofSchema },
    responses: {
      201: { description: 'The proof', schema: IssuedProofSchema },
      404: { description: 'capability_grant_not_found' },
      409: { description: 'grant_not_live, or proof_not_signed (the issuer has no active key)' },
    },
    handler: async ({ params, body, principal }) => {
      const outcome = await issueCapabilityProof(deps, principal, params.grant_id, body.taskId);
      if (!outcome.ok)
        throw outcome.code === 'grant_not_found'
          ? new Problem('capability_grant_not_found')
          : new Problem(outcome.code, outcome.detail);
      const { grant } = outcome;
      return {
        status: 201,
        body: {
          proof: outcome.proof,
          kid: outcome.kid,
          issuer: grant.issuer_did,
          grantId: grant.grant_id,
          taskId: body.taskId ?? null,
          expiresAt: outcome.expires_at,
        },
      };
    },
  });
}

function registerSubmit(proofs: RouteGroup, db: Knex): void {
  proofs.route({
    method: 'post',
    path: '/v1/capability-proofs',
    operationId: 'submitSkillProof',
    summary: 'Submit a skill proof',
    description:
      'agentId is the agent’s DID, skillId the capability URI, proofDocument a proof issued for the agent’s grant. It is verified before it is recorded.',
    request: { body: SubmitSkillProofSchema },
    responses: {
      201: { description: 'The recorded proof', schema: SkillProofSchema },
      404: { description: 'capability_grant_not_found: the proof’s grant is not your organization’s' },
      422: { description: 'capability_proof_invalid, with the reason' },
    },
    handler: async ({ body, principal }) => {
      const outcome = await submitSkillProof(db, principal, body);
      if (!outcome.ok)
        throw outcome.code === 'grant_not_found'
          ? new Problem('capability_grant_not_found')
          : new Problem(outcome.code, outcome.detail);
      return { status: 201, body: proofView(outcome.proof) };
    },
  });
}

function registerVerify(proofs: RouteGroup, db: Knex): void {
  proofs.route({
    method: 'post',
    path: '/v1/capability-proofs/verify',
    operationId: 'verifyCapabilityProof',
    summary: 'Verify a capability proof for a task',
    description:
      'Valid when the signature verifies by a key the issuer’s DID document publishes (never a revoked one), the grant is live and the agent’s, ' +
      'and the proof is for this task; otherwise valid is false with the code and reason. A proof of another organization’s grant is 404.',
    auth: 'platform:read',
    request: { body: VerifyCapabilityProofSchema },
    responses: {
      200: { description: 'The verdict', schema: ProofVerificationSchema },
      404: { description: 'capability_grant_not_found: the proof’s grant is not your organization’s' },
    },
    handler: async ({ body, principal }) => {
      const verdict = await verifyCapabilityProof(db, principal, {
        agentDid: body.agentDid,
        proof: body.capabilityProof,
        taskId: body.taskId,
      });
      if (!verdict.valid && verdict.code === 'grant_not_found') throw new Problem('capability_grant_not_found');
      return {
        status: 200,
        body: verdict.valid
          ? {
              valid: true,
              reason: `signed by ${verdict.kid} of ${verdict.issuer}; grant live; task ${verdict.claims.task_id ?? '(none)'}`,
              code: null,
              grantId: verdict.grant.grant_id,
              capabilityId: verdict.grant.capability_id,
              issuer: verdict.issuer,
            }
          : {
              valid: false,
              reason: verdict.reason,
              code: verdict.code,
              grantId: null,
              capabilityId: null,
              issuer: null,
            },
      };
    },
  });
}

function registerVerifySkills(proofs: RouteGroup, db: Knex): void {
  proofs.route({
    method: 'post',
    path: '/v1/skills/verify',
    operationId: 'verifySkills',
    summary: 'Verify skills',
    description:
      'For each skill (a capability URI, or a skill a definition lists), whether the subject holds it now through a live grant, and which.',
    auth: 'platform:read',
    request: { body: VerifySkillsSchema },
    responses: {
      200: { description: 'One verdict per skill, in order', schema: SkillVerificationsSchema },
      422: { description: 'skill_subject_required' },
    },
    handler: async ({ body, principal }) => {
      const subjectDid = body.subjectDid ?? principal.actor?.did;
      if (!subjectDid) throw new Problem('skill_subject_required');
      return {
        status: 200,
        body: { subjectDid, skills: await verifySkills(db, principal.organization_id, subjectDid, body.skills) },
      };
    },
  });
}

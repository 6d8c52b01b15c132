/** Capability proofs signed by a granting Passport's key, skill proofs and their verification. */
import { CapabilityIdSchema } from './passports';
import { DidSchema } from './common';
import { z } from './zod';

export const IssueProofSchema = z
  .object({ taskId: z.string().min(1).max(200).optional() })
  .strict()
  .openapi('IssueCapabilityProofRequest');

export const IssuedProofSchema = z
  .object({
    proof: z.string(),
    kid: z.string(),
    issuer: z.string(),
    grantId: z.string(),
    taskId: z.string().nullable(),
    expiresAt: z.string(),
  })
  .openapi('CapabilityProof');

export const SubmitSkillProofSchema = z
  .object({ agentId: DidSchema, skillId: CapabilityIdSchema, proofDocument: z.string().min(1).max(10_000) })
  .strict()
  .openapi('SubmitSkillProofRequest');

export const SkillProofSchema = z
  .object({
    proofId: z.string(),
    agentId: z.string(),
    skillId: z.string(),
    grantId: z.string(),
    taskId: z.string().nullable(),
    kid: z.string(),
    createdAt: z.string(),
  })
  .openapi('SkillProof');

export const ProofParamsSchema = z.object({
  proof_id: z.string().regex(/^cpf_[A-Za-z0-9-]{1,100}$/, 'must be a proof id (cpf_…)'),
});

export const VerifyCapabilityProofSchema = z
  .object({ agentDid: DidSchema, capabilityProof: z.string().min(1).max(10_000), taskId: z.string().min(1).max(200) })
  .strict()
  .openapi('VerifyCapabilityProofRequest');

export const ProofVerificationSchema = z
  .object({
    valid: z.boolean(),
    reason: z.string(),
    code: z.string().nullable().openapi({
      description:
        'Why it failed: signature_invalid (a revoked or unknown key among others), grant_revoked, grant_expired, task_mismatch, subject_mismatch, issuer_mismatch, malformed_proof',
    }),
    grantId: z.string().nullable(),
    capabilityId: z.string().nullable(),
    issuer: z.string().nullable(),
  })
  .openapi('CapabilityProofVerification');

export const VerifySkillsSchema = z
  .object({
    skills: z.array(z.string().min(1).max(300)).min(1).max(100),
    subjectDid: DidSchema.optional().openapi({
      description: 'Whose skills; default: the signed-in or delegating Passport',
    }),
  })
  .strict()
  .openapi('VerifySkillsRequest');

export const SkillVerificationsSchema = z
  .object({
    subjectDid: z.string(),
    skills: z.array(
      z.object({
        skill: z.string(),
        verified: z.boolean(),
        capabilityId: z.string().nullable(),
        grantId: z.string().nullable(),
        weight: z.number().nullable(),
        reason: z.string(),
      }),
    ),
  })
  .openapi('SkillVerifications');

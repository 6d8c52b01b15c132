import { CapabilityDefinition, CapabilityGrant, Course } from '../../contracts/aggregates/capability';
import { viewOf } from '../../lib/shape';
import { CapabilityIdSchema } from './passports';
import { DidSchema, listQuerySchema, TimestampSchema, WeightSchema } from './common';
import { z } from './zod';

const Text = (max: number) => z.string().max(max).regex(/\S/, 'must not be blank');

const definition = viewOf(CapabilityDefinition, {
  rename: {
    capability_id: 'capabilityId',
    promoted_at: 'promotedAt',
    promote_reason: 'promoteReason',
    created_at: 'createdAt',
    updated_at: 'updatedAt',
  },
  hide: ['organization_id', 'capability_name', 'promoted_by', 'created_by'],
});
export const CapabilityDefinitionSchema = definition.schema.openapi('CapabilityDefinition');
export const definitionView = definition.of;

const grant = viewOf(CapabilityGrant, {
  rename: {
    grant_id: 'grantId',
    capability_id: 'capabilityId',
    subject_type: 'subjectType',
    subject_did: 'subjectDid',
    issuer_did: 'issuer',
    issuer_passport_id: 'issuerPassportId',
    created_at: 'createdAt',
    expires_at: 'expiresAt',
    revoked_at: 'revokedAt',
    revoked_by: 'revokedBy',
    revoke_reason: 'revokeReason',
  },
  hide: ['organization_id', 'capability_name', 'created_by'],
});
export const CapabilityGrantSchema = grant.schema.openapi('CapabilityGrant');
export const grantView = grant.of;

const course = viewOf(Course, {
  rename: { course_id: 'courseId', created_at: 'createdAt' },
  hide: ['organization_id', 'created_by'],
});
export const CourseSchema = course.schema.openapi('Course');
export const courseView = course.of;

export const DefineCapabilitySchema = z
  .object({
    capabilityId: CapabilityIdSchema,
    name: Text(200),
    description: Text(2000),
    tags: z.array(z.string().min(1).max(100)).max(50).optional(),
    implies: z
      .array(CapabilityIdSchema)
      .max(50)
      .optional()
      .openapi({ description: 'Capabilities a holder of this one also holds (a cardiologist is a physician)' }),
    skills: z.array(z.string().min(1).max(300)).max(100).optional(),
    version: z.string().min(1).max(64).optional(),
  })
  .strict()
  .openapi('DefineCapabilityRequest');

export const ImportCapabilitiesSchema = z
  .object({
    capabilityDefinitions: z
      .array(z.unknown())
      .min(1)
      .max(1000)
      .openapi({ description: 'Up to 1,000 entries, each a DefineCapabilityRequest; each is checked on its own' }),
  })
  .strict()
  .openapi('ImportCapabilitiesRequest');

const FieldProblemSchema = z.object({ field: z.string(), code: z.string(), message: z.string() });

export const ImportCapabilitiesResponseSchema = z
  .object({
    status: z.enum(['imported', 'partial', 'failed']).openapi({
      description: 'imported: every entry; partial: the valid ones, the others in errors; failed: none',
    }),
    importedCount: z.number().int(),
    imported: z.array(CapabilityDefinitionSchema),
    errors: z.array(
      z.object({ index: z.number().int(), capabilityId: z.string().nullable(), errors: z.array(FieldProblemSchema) }),
    ),
  })
  .openapi('ImportCapabilitiesResponse');

export const CapabilityParamsSchema = z.object({
  capability_id: z.string().min(1).max(300).openapi({ description: 'The URL-encoded capability URI, or its name' }),
});

export const PromoteCapabilitySchema = z
  .object({ reason: Text(2000) })
  .strict()
  .openapi('PromoteCapabilityRequest');

export const PromotedCapabilitySchema = z
  .object({
    data: CapabilityDefinitionSchema,
    ontology: z.object({ name: z.string(), version: z.number().int() }),
  })
  .openapi('PromotedCapability');

export const ListDefinitionsQuerySchema = listQuerySchema.extend({
  status: z.enum(['proposed', 'promoted']).optional(),
  tag: z.string().min(1).max(100).optional(),
});

const RequiredCapabilitySchema = z.union([
  CapabilityIdSchema.transform((capabilityId) => ({ capabilityId, minWeight: 0 })),
  z
    .object({
      capabilityId: CapabilityIdSchema,
      minWeight: z.number().min(0).max(1).default(0),
      relaxAfterSeconds: z
        .number()
        .int()
        .min(0)
        .max(86_400 * 30)
        .optional()
        .openapi({
          description:
            'Once the task has waited this long (taskContext.waitedSeconds), this capability is no longer required',
        }),
    })
    .strict(),
]);

export const MatchCapabilitiesSchema = z
  .object({
    requiredCapabilities: z.array(RequiredCapabilitySchema).min(1).max(20),
    taskContext: z
      .object({
        waitedSeconds: z.number().int().min(0).optional(),
        subjectTypes: z
          .array(z.enum(['person', 'agent']))
          .min(1)
          .optional(),
        exclude: z.array(DidSchema).max(100).optional(),
        limit: z.number().int().min(1).max(100).default(20),
      })
      .catchall(z.unknown())
      .default({ limit: 20 }),
  })
  .strict()
  .openapi('MatchCapabilitiesRequest');

export const MatchCapabilitiesResponseSchema = z
  .object({
    matches: z.array(
      z.object({
        subjectType: z.enum(['person', 'agent']),
        did: z.string(),
        score: z.number().openapi({ description: 'The mean matched weight over the requirements' }),
        openAssignments: z.number().int(),
        capacity: z.number().int().nullable(),
        matched: z.array(
          z.object({
            capabilityId: z.string(),
            minWeight: z.number(),
            weight: z.number(),
            grantId: z.string(),
            via: z.array(z.string()).openapi({ description: 'The held capability down to the required one' }),
          }),
        ),
        relaxed: z.array(z.string()),
        reason: z.string(),
      }),
    ),
  })
  .openapi('CapabilityMatches');

export const GrantCapabilitiesSchema = z
  .object({
    agentDID: DidSchema.optional(),
    personDID: DidSchema.optional(),
    capabilities: z.array(CapabilityIdSchema).min(1).max(100),
    weight: WeightSchema.default(1),
    expiresAt: TimestampSchema.optional().openapi({ description: 'After this the grant never matches nor proves' }),
    issuerPassportId: z.string().min(1).max(200).optional().openapi({
      description: 'An agent or organization Passport of yours that issues the grant; default: the organization’s',
    }),
    evidence: z
      .object({ courseCompletionId: z.string().min(1).max(200) })
      .strict()
      .optional(),
  })
  .strict()
  .refine((body) => (body.agentDID === undefined) !== (body.personDID === undefined), {
    message: 'name exactly one of agentDID and personDID',
    path: ['agentDID'],
  })
  .openapi('GrantCapabilitiesRequest');

export const GrantsPageItems = z.object({ data: z.array(CapabilityGrantSchema) }).openapi('CapabilityGrants');

export const GrantParamsSchema = z.object({
  grant_id: z.string().regex(/^cgr_[A-Za-z0-9-]{1,100}$/, 'must be a grant id (cgr_…)'),
});

export const RevokeGrantSchema = z
  .object({ reason: Text(2000).optional() })
  .strict()
  .openapi('RevokeGrantRequest');

export const ListGrantsQuerySchema = listQuerySchema.extend({
  subject_did: DidSchema.optional(),
  capability_id: CapabilityIdSchema.optional(),
  live: z.enum(['true', 'false']).optional().openapi({ description: 'true: only grants neither revoked nor expired' }),
});

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

const HeldCapabilitySchema = z.object({
  capabilityId: z.string(),
  weight: z.number(),
  grantId: z.string(),
  issuer: z.string(),
  expiresAt: z.string().nullable(),
  impliedBy: z.string().nullable(),
});

export const PassportCapabilitiesSchema = z
  .object({ passportId: z.string(), did: z.string(), capabilities: z.array(HeldCapabilitySchema) })
  .openapi('PassportCapabilities');

export const OntologyParamsSchema = z.object({ name: z.string().regex(/^[a-z0-9][a-z0-9._-]{0,62}$/) });
export const OntologyVersionParamsSchema = OntologyParamsSchema.extend({
  version: z.string().regex(/^(latest|[1-9]\d{0,8})$/, 'must be a version number or latest'),
});

export const OntologyPackagesSchema = z
  .object({
    data: z.array(
      z.object({
        name: z.string(),
        latestVersion: z.number().int(),
        versions: z.number().int(),
        updatedAt: z.string(),
      }),
    ),
  })
  .openapi('OntologyPackages');

export const OntologyVersionSchema = z
  .object({
    name: z.string(),
    version: z.number().int(),
    reason: z.string(),
    createdAt: z.string(),
    definitions: z.array(CapabilityDefinitionSchema),
  })
  .openapi('OntologyPackageVersion');

export const SkillOntologySchema = z
  .object({
    name: z.string(),
    version: z.number().int(),
    capabilities: z.array(
      z.object({
        capabilityId: z.string(),
        skills: z.array(z.string()),
        implies: z.array(z.string()).openapi({ description: 'Every capability it implies, transitively' }),
      }),
    ),
  })
  .openapi('SkillOntology');

export const CreateCourseSchema = z
  .object({ title: Text(200), description: Text(5000), capabilities: z.array(CapabilityIdSchema).max(50).default([]) })
  .strict()
  .openapi('CreateCourseRequest');

export const CourseParamsSchema = z.object({
  course_id: z.string().regex(/^crs_[A-Za-z0-9-]{1,100}$/, 'must be a course id (crs_…)'),
});

export const CompleteCourseSchema = z.object({ subjectDid: DidSchema }).strict().openapi('CompleteCourseRequest');

export const CourseCompletionSchema = z
  .object({ completionId: z.string(), courseId: z.string(), subjectDid: z.string(), completedAt: z.string() })
  .openapi('CourseCompletion');

export const PermissionsSchema = z
  .object({
    principal: z.object({ id: z.string(), kind: z.string(), did: z.string().nullable() }),
    permissions: z.array(
      z.object({
        capability: z.string(),
        source: z.enum(['role', 'delegation', 'grant']),
        via: z.string().openapi({ description: 'The scope or role, the delegation id, or the grant id' }),
        weight: z.number().nullable(),
        expiresAt: z.string().nullable(),
      }),
    ),
  })
  .openapi('Permissions');

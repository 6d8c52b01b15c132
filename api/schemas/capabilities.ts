import { CapabilityDefinition } from '../../contracts/aggregates/capability';
import { viewOf } from '../../lib/shape';
import { CapabilityIdSchema } from './passports';
import { DidSchema, listQuerySchema, NonBlankText } from './common';
import { z } from './zod';

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

export const DefineCapabilitySchema = z
  .object({
    capabilityId: CapabilityIdSchema,
    name: NonBlankText(200),
    description: NonBlankText(2000),
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
  .object({ reason: NonBlankText(2000) })
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

import { z } from './zod';
import { Cover } from '../../contracts/aggregates/cover';
import { viewOf } from '../../lib/shape';
import { DidSchema, listQuerySchema } from './common';

const DID = DidSchema;

export const cover = viewOf(Cover, { hide: ['organization_id'] });
export const CoverSchema = cover.schema.openapi('Cover');

export const CreateCoverSchema = z
  .strictObject({
    covered_did: DID.optional().openapi({
      description: 'Whose approvals are handed on; yours when absent. Naming someone else needs people:enroll',
    }),
    covering_did: DID.openapi({ description: 'The colleague who takes them: their Passport DID' }),
    starts_at: z.iso.datetime({ offset: true }).optional().openapi({ description: 'Now when absent' }),
    ends_at: z.iso.datetime({ offset: true }).openapi({ description: 'At most 90 days after starts_at' }),
    capabilities: z
      .array(z.string().trim().min(1).max(200))
      .min(1)
      .max(50)
      .optional()
      .openapi({
        description:
          'Hand on only the routings whose every required capability is one of these (capability ids as routing requests name them, ' +
          'compared without case); absent: all routings and approvals. A limited cover leaves approvals, which name no capability, with you',
        example: ['medical_diagnosis'],
      }),
    reason: z.string().max(500).optional(),
  })
  .openapi('CreateCover');

export const ListCoversQuerySchema = listQuerySchema.extend({
  party: DID.optional().openapi({
    description: 'Only covers this person gives or takes. A person who is not an administrator sees only their own',
  }),
  active: z.enum(['true', 'false']).optional().openapi({ description: 'true: only covers in force now' }),
});

export const CoverIdParamsSchema = z.object({ cover_id: z.string().min(1).max(100) });

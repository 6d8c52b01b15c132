import { z } from 'zod';

/**
 * A cover: a person hands the approvals and routings addressed to them to a colleague for a window (out of
 * office, on leave). It is applied when a request is opened or escalated, or a routing assigned to them, so
 * the request or routing names the colleague and records whom they cover for; one already open keeps its holder. Stored by db/covers.ts; the view, the row
 * and the OpenAPI component come from this schema.
 */
export const Cover = z
  .object({
    cover_id: z.string().meta({ description: 'cov_…' }),
    organization_id: z.string(),
    covered_did: z.string().meta({ description: 'The person who is away (their Passport DID)' }),
    covering_did: z.string().meta({ description: 'The colleague who takes their approvals (a Passport DID)' }),
    starts_at: z.iso.datetime(),
    ends_at: z.iso.datetime().meta({ description: 'The cover applies to requests opened before this instant' }),
    capabilities: z
      .array(z.string())
      .optional()
      .meta({
        description:
          'Only the routings whose every required capability is one of these are handed on (compared without case); ' +
          'absent: everything. A limited cover leaves the person’s approvals, which name no capability, with them',
      }),
    reason: z.string().optional(),
    created_by: z.string().meta({ description: 'The principal that set the cover: the person, or an administrator' }),
    created_at: z.iso.datetime(),
    ended_at: z.iso.datetime().optional().meta({ description: 'Set when the cover was ended early' }),
  })
  .meta({ description: 'A person’s approvals handed to a colleague for a window' });
export type Cover = z.infer<typeof Cover>;

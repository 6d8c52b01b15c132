import { z } from 'zod';

/**
 * A cover: a person hands the approvals addressed to them to a colleague for a window (out of office, on
 * leave). It is applied when a request is opened or escalated, so the request names the colleague and records
 * whom they cover for; a request already open keeps its approver. Stored by db/covers.ts; the view, the row
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
    reason: z.string().optional(),
    created_by: z.string().meta({ description: 'The principal that set the cover: the person, or an administrator' }),
    created_at: z.iso.datetime(),
    ended_at: z.iso.datetime().optional().meta({ description: 'Set when the cover was ended early' }),
  })
  .meta({ description: 'A person’s approvals handed to a colleague for a window' });
export type Cover = z.infer<typeof Cover>;

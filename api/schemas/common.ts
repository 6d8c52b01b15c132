import { z } from './zod';

export const DidSchema = z
  .string()
  .regex(/^did:[a-z0-9]+:[A-Za-z0-9._:%-]+$/, 'must be a DID (did:<method>:<id>)')
  .openapi({ example: 'did:web:example.com:reviewers:alice' });

/** Offsets beyond ±15:59 and the year 0 are ISO 8601 that PostgreSQL's timestamptz refuses. */
const POSTGRES_OUT_OF_RANGE = /^0000-|[+-](?:1[6-9]|[2-9]\d):\d\d$/;

export function isStorableTimestamp(value: string): boolean {
  return !POSTGRES_OUT_OF_RANGE.test(value);
}

/** Every date-time the API accepts, in bodies and in list filters (created_at__gte and the like). */
export const TimestampSchema = z.iso
  .datetime({ offset: true, abort: true })
  .refine(isStorableTimestamp, { message: 'must have an offset within ±15:59 and a year from 0001' })
  .openapi({ example: '2026-11-01T09:30:00Z' });

export const ProblemSchema = z
  .object({
    type: z.string().openapi({ example: '/problems/validation_failed' }),
    title: z.string(),
    status: z.number().int(),
    detail: z.string().optional(),
    instance: z.string().openapi({ description: 'The request path' }),
    request_id: z.string(),
    errors: z
      .array(z.object({ field: z.string(), code: z.string(), message: z.string() }))
      .optional()
      .openapi({ description: 'Field errors, for validation problems' }),
  })
  .catchall(z.unknown())
  .openapi('Problem', { description: 'RFC 9457 problem details; extension members may follow.' });

export const LedgerAnchorSchema = z
  .object({ transaction_id: z.string(), block_number: z.number().int() })
  .openapi('LedgerAnchor');

/** Query parameters of every list: limit 1..100 (default 20), an opaque cursor, and sort. */
export const listQuerySchema = z.object({
  limit: z.coerce.number().int().min(1).max(100).default(20),
  cursor: z.string().min(1).optional(),
  sort: z.string().optional().openapi({ description: 'Comma-separated fields; a leading - sorts descending' }),
});

export function pageSchema<T extends z.ZodType>(item: T, name: string) {
  return z
    .object({
      data: z.array(item),
      has_more: z.boolean(),
      next_cursor: z.string().nullable(),
      total_count: z.number().int(),
    })
    .openapi(name);
}

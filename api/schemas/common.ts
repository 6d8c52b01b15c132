import { z } from './zod';

export const DidSchema = z
  .string()
  .regex(/^did:[a-z0-9]+:[A-Za-z0-9._:%-]+$/, 'must be a DID (did:<method>:<id>)')
  .openapi({ example: 'did:web:example.com:reviewers:alice' });

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

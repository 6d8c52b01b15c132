import { z } from './zod';

/**
 * A capability's weight, 0..1, as Postgres keeps it (a 4-byte float): a value too small for one (5e-324) would
 * fail its cast, so anything between 0 and a millionth is refused rather than stored as what it is not.
 */
/** Free text of at most max characters that is not only whitespace. */
export const NonBlankText = (max: number) => z.string().max(max).regex(/\S/, 'must not be blank');

export const WeightSchema = z
  .number()
  .min(0)
  .max(1)
  .refine((weight) => weight === 0 || weight >= 1e-6, { message: 'must be 0, or from 0.000001 to 1' });

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

const FieldErrorSchema = z
  .object({
    field: z.string().openapi({ description: 'Where: a body path (a.b.0), or query., path. or header. and the name' }),
    code: z.string().openapi({
      description:
        'REQUIRED_FIELD_MISSING for an absent required field; otherwise the validator’s code (invalid_type, too_small …)',
    }),
    message: z.string(),
    expected: z.string().optional().openapi({ description: 'What the field takes, where known', example: 'number' }),
    received: z.string().optional().openapi({
      description: 'What was sent: a type name or a short rendering, never a secret or a long value',
      example: 'string',
    }),
  })
  .openapi('FieldError');

const RemediationStepSchema = z
  .object({ step: z.number().int().min(1), description: z.string() })
  .openapi('RemediationStep', { description: 'One thing the client can do about the problem, in order' });

export const ProblemSchema = z
  .object({
    type: z.string().openapi({
      example: '/problems/validation_failed',
      description: 'GET it for the problem type: title, status and remediation',
    }),
    title: z.string(),
    status: z.number().int(),
    detail: z.string().optional(),
    instance: z.string().openapi({ description: 'The request path' }),
    request_id: z.string(),
    incident_id: z.string().optional().openapi({
      description: 'On a 5xx: quote it to support; the error log line carries the same id',
      example: 'inc_0b6f4a52-3c1e-4d0e-9f3a-6f5d2b7c8e91',
    }),
    errors: z.array(FieldErrorSchema).optional().openapi({ description: 'Field errors, for validation problems' }),
    remediation: z.array(RemediationStepSchema).openapi({ description: 'What the client can do, step by step' }),
  })
  .catchall(z.unknown())
  .openapi('Problem', {
    description:
      'RFC 9457 problem details; extension members may follow (escalation, retry_after_seconds, required_scope …).',
  });

/** The one format of an Idempotency-Key, which the middleware enforces and the document states. */
export const IdempotencyKeySchema = z
  .string()
  .min(1)
  .max(255)
  .regex(/^[\x21-\x7e]+$/, 'must be visible ASCII characters');

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

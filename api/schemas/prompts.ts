import { Prompt, PromptVersion } from '../../contracts/aggregates/prompt';
import type { Page } from '../../db/pagination';
import { isSemver } from '../../domain/prompts/semver';
import { promptUri } from '../../services/prompts/references';
import { z } from './zod';

export const SemverSchema = z
  .string()
  .max(128)
  .refine(isSemver, { message: 'must be a semantic version (semver.org), e.g. 1.2.0' })
  .openapi({ example: '1.2.0' });

export const PromptKeyParamsSchema = z.object({
  key: z
    .string()
    .min(1)
    .max(300)
    .openapi({ description: 'The short key, or the URL-encoded prompt URI prompt://org/<org>/<key>' }),
});

export const PromptVersionParamsSchema = PromptKeyParamsSchema.extend({ version: SemverSchema });

export const PublishPromptSchema = z
  .object({
    version: SemverSchema,
    content: z
      .string()
      .min(1)
      .max(100_000)
      .openapi({ description: '{{name}} placeholders are filled from prompt_variables of POST /v1/reason' }),
    meta: z
      .object({
        id: z.string().max(200).optional(),
        namespace: z.string().max(200).optional(),
        scope: z.string().max(200).optional(),
        description: z.string().max(2000).optional(),
      })
      .catchall(z.unknown())
      .openapi({ description: 'namespace and scope label the prompt (list filters)' }),
    input_schema: z
      .record(z.string(), z.unknown())
      .optional()
      .openapi({ description: 'A JSON Schema (draft-07) the variables must match; checked when published' }),
    extends_uri: z.string().max(400).optional().openapi({
      description:
        'prompt://org/<org>/<key> (its active version) or …@<version>: this version’s content follows that prompt’s; a chain that comes back to itself is refused',
    }),
  })
  .strict()
  .openapi('PublishPromptRequest');

export const RollbackPromptSchema = z
  .object({ target_version: SemverSchema })
  .strict()
  .openapi('RollbackPromptRequest');

export const DeprecatePromptSchema = z
  .object({
    successor_version: SemverSchema.optional().openapi({
      description: 'Required to deprecate the active version: it becomes active in its place',
    }),
  })
  .strict()
  .openapi('DeprecatePromptRequest');

const DateTimeSchema = () => z.string().openapi({ format: 'date-time' });

const prompt = Prompt.shape;

/** A prompt as the API shows it: the aggregate with its URI, organization_id as org_id, times in ISO 8601. */
export const PromptSchema = z
  .object({
    prompt_uri: z.string(),
    prompt_key: prompt.prompt_key,
    org_id: prompt.organization_id,
    scope: prompt.scope,
    namespace: prompt.namespace,
    active_version: prompt.active_version,
    created_at: DateTimeSchema(),
    updated_at: DateTimeSchema(),
  })
  .openapi('Prompt');

const version = PromptVersion.shape;

/** A version as the API shows it: as the prompt, without its sort key and who deprecated it. */
export const PromptVersionSchema = z
  .object({
    prompt_uri: z.string(),
    prompt_key: version.prompt_key,
    org_id: version.organization_id,
    version: version.version,
    content: version.content,
    meta: version.meta,
    input_schema: version.input_schema,
    extends_uri: version.extends_uri,
    published_by: version.published_by,
    published_at: DateTimeSchema(),
    status: version.status,
    deprecated_at: DateTimeSchema().nullable(),
  })
  .openapi('PromptVersion');

export function styleBPage<T extends z.ZodType>(item: T, name: string) {
  return z
    .object({
      data: z.array(item),
      pagination: z.object({
        has_more: z.boolean(),
        next_cursor: z.string().nullable(),
        total_count: z.number().int(),
      }),
    })
    .openapi(name);
}

export function promptView(row: Prompt): z.infer<typeof PromptSchema> {
  return {
    prompt_uri: promptUri(row.organization_id, row.prompt_key),
    prompt_key: row.prompt_key,
    org_id: row.organization_id,
    scope: row.scope,
    namespace: row.namespace,
    active_version: row.active_version,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}

export function versionView(row: PromptVersion): z.infer<typeof PromptVersionSchema> {
  return {
    prompt_uri: promptUri(row.organization_id, row.prompt_key),
    prompt_key: row.prompt_key,
    org_id: row.organization_id,
    version: row.version,
    content: row.content,
    meta: row.meta,
    input_schema: row.input_schema,
    extends_uri: row.extends_uri,
    published_by: row.published_by,
    published_at: row.published_at.toISOString(),
    status: row.status,
    deprecated_at: row.deprecated_at?.toISOString() ?? null,
  };
}

/** A page as the prompt operations answer it: the rows through their view, the paging under pagination. */
export function styleBPageView<T, V>(page: Page<T>, view: (row: T) => V) {
  return {
    data: page.data.map(view),
    pagination: { has_more: page.has_more, next_cursor: page.next_cursor, total_count: page.total_count },
  };
}

export const ListPromptsQuerySchema = z.object({
  namespace: z.string().max(200).optional(),
  scope: z.string().max(200).optional(),
  limit: z.coerce.number().int().min(1).max(100).default(20),
  cursor: z.string().min(1).max(2000).optional(),
});

export const PageQuerySchema = z.object({
  limit: z.coerce.number().int().min(1).max(100).default(20),
  cursor: z.string().min(1).max(2000).optional(),
});

export const PromptStatisticsSchema = z
  .object({
    prompt_key: z.string(),
    window: z.object({ start: z.string(), end: z.string() }),
    stats: z.object({
      total_calls: z.number().int(),
      avg_tokens: z.number(),
      avg_cost_usd: z.number(),
      avg_duration_ms: z.number(),
      positive_signals: z.number().int(),
      negative_signals: z.number().int(),
      rephrases: z.number().int(),
      corrections: z.number().int(),
    }),
    model_breakdown: z.array(
      z.object({
        model_id: z.string(),
        provider: z.string(),
        call_count: z.number().int(),
        avg_latency_ms: z.number(),
        avg_cost_usd: z.number(),
        avg_tokens: z.number(),
        success_rate: z.number(),
      }),
    ),
    recommended_model: z.string().nullable().openapi({
      description:
        'The best success rate among models with at least 10 calls of the prompt in the window; null when none has',
    }),
  })
  .openapi('PromptStatistics');

export const AffinityItemSchema = z
  .object({
    prompt_key: z.string(),
    model_id: z.string(),
    provider: z.string(),
    sample_size: z.number().int(),
    stats: z.object({
      avg_latency_ms: z.number(),
      avg_cost_usd: z.number(),
      avg_tokens: z.number(),
      success_rate: z.number(),
    }),
    affinity_score: z
      .number()
      .openapi({ description: 'success_rate × (0.7 + 0.3 × cheapest avg cost / this avg cost)' }),
  })
  .openapi('PromptModelAffinity');

export const PromptRollbackSchema = z
  .object({
    prompt_uri: z.string(),
    active_version: z.string(),
    rolled_back_at: z.string().openapi({ format: 'date-time' }),
  })
  .openapi('PromptRollback');

export const PromptDeprecationSchema = z
  .object({
    prompt_uri: z.string(),
    version: z.string(),
    status: z.literal('deprecated'),
    deprecated_at: z.string().openapi({ format: 'date-time' }),
    active_version: z.string(),
  })
  .openapi('PromptDeprecation');

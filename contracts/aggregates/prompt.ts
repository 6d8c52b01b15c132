import { z } from 'zod';

const JsonObject = z.record(z.string(), z.unknown());

/**
 * A prompt of an organization's registry: its key, the labels its active version's meta gives it, and which
 * version is served. Services hold it as the prompts table stores it (db/prompts.ts); the API view
 * (api/schemas/prompts.ts) adds its URI and shows organization_id as org_id. Fields are in the order the view
 * shows them.
 */
export const Prompt = z.object({
  prompt_key: z.string(),
  organization_id: z.string(),
  scope: z.string().nullable(),
  namespace: z.string().nullable(),
  active_version: z.string(),
  created_at: z.date(),
  updated_at: z.date(),
});
export type Prompt = z.infer<typeof Prompt>;

export const PROMPT_VERSION_STATUSES = ['active', 'deprecated'] as const;

/**
 * A published version of a prompt: its content never changes; it may only be deprecated. Stored as a row of
 * prompt_versions (db/prompts.ts); the API view (api/schemas/prompts.ts) adds the prompt's URI and keeps the
 * sort key and who deprecated it internal. Fields are in the order the view shows them.
 */
export const PromptVersion = z.object({
  prompt_key: z.string(),
  organization_id: z.string(),
  version: z.string(),
  /** The version's precedence as text whose byte order is semver order (domain/prompts/semver.ts). */
  version_sort: z.string(),
  content: z.string(),
  meta: JsonObject,
  input_schema: JsonObject.nullable(),
  extends_uri: z.string().nullable(),
  published_by: z.string(),
  published_at: z.date(),
  status: z.enum(PROMPT_VERSION_STATUSES).meta({
    description: 'active: may be served and rolled back to; which version is served is the prompt’s active_version',
  }),
  deprecated_at: z.date().nullable(),
  deprecated_by: z.string().nullable(),
});
export type PromptVersion = z.infer<typeof PromptVersion>;

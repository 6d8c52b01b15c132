import { z } from 'zod';
import type { OrganizationConnectorType } from '../../domain/marketplace/organization-connectors';

/**
 * The configuration each type of organization connector takes (domain/marketplace/organization-connectors.ts
 * names the types). Every configuration is a strict object: a key the type does not name is refused, so a
 * password or a token cannot be stored in one by mistake.
 */
const httpsUrl = z.url({ protocol: /^https$/, error: 'must be an https URL' }).max(2000);
const hostname = z
  .string()
  .min(1)
  .max(253)
  .regex(/^[A-Za-z0-9.-]+$/, 'must be a host name or an IP address');

export const CONFIGURATION_SCHEMAS = {
  webhook: z.strictObject({
    url: httpsUrl,
    events: z.array(z.string().min(1).max(100)).min(1).max(50),
  }),
  rest_api: z.strictObject({
    base_url: httpsUrl,
    allowed_paths: z.array(z.string().regex(/^\//, 'must start with /').max(500)).max(100).optional(),
    timeout_ms: z.number().int().min(100).max(60_000).optional(),
  }),
  database: z.strictObject({
    engine: z.enum(['postgres', 'mysql']),
    host: hostname,
    port: z.number().int().min(1).max(65_535),
    database: z.string().min(1).max(63),
    read_only: z.boolean().default(true),
  }),
  email: z.strictObject({
    from: z.email().max(320),
    reply_to: z.email().max(320).optional(),
  }),
  marketplace: z.strictObject({
    installation_id: z.string().min(1).max(200),
  }),
} as const satisfies Record<OrganizationConnectorType, z.ZodType>;

export interface ConfigurationProblem {
  field: string;
  code: string;
  message: string;
}

export type CheckedConfiguration =
  { ok: true; configuration: Record<string, unknown> } | { ok: false; errors: ConfigurationProblem[] };

/** The configuration as its type takes it (defaults filled in), or where it breaks the type's schema. */
export function checkConfiguration(type: OrganizationConnectorType, configuration: unknown): CheckedConfiguration {
  const parsed = CONFIGURATION_SCHEMAS[type].safeParse(configuration);
  if (parsed.success) return { ok: true, configuration: parsed.data };
  return {
    ok: false,
    errors: parsed.error.issues.map((issue) => ({
      field: ['configuration', ...issue.path.map(String)].join('.'),
      code: issue.code === 'unrecognized_keys' ? 'FIELD_NOT_ALLOWED' : issue.code,
      message: issue.message,
    })),
  };
}

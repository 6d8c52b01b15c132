import type { InvocationRow, UsageDay, UsageTotals } from '../../db/invocations';
import { z } from './zod';

export const RecordInvocationSchema = z
  .object({
    operation: z
      .string()
      .min(1)
      .max(200)
      .openapi({ description: 'The connector operation called, e.g. messages.send' }),
    outcome: z.enum(['success', 'error']),
    duration_ms: z.number().int().min(0).max(86_400_000),
    error_code: z
      .string()
      .min(1)
      .max(200)
      .optional()
      .openapi({ description: 'With outcome error: the provider’s or the connector’s error code' }),
    cost_usd: z.number().min(0).max(1_000_000).optional().openapi({ description: 'What the call cost, 0 by default' }),
  })
  .strict()
  .refine((body) => body.outcome === 'error' || body.error_code === undefined, {
    message: 'error_code goes only with outcome error',
    path: ['error_code'],
  })
  .openapi('RecordInvocationRequest');

export const InvocationSchema = z
  .object({
    invocation_id: z.string(),
    installation_id: z.string(),
    connector_id: z.string(),
    operation: z.string(),
    outcome: z.enum(['success', 'error']),
    duration_ms: z.number().int(),
    error_code: z.string().nullable(),
    cost_usd: z.number(),
    invoked_at: z.string(),
  })
  .openapi('ConnectorInvocation');

export function invocationView(row: InvocationRow): z.output<typeof InvocationSchema> {
  return {
    invocation_id: row.invocation_id,
    installation_id: row.installation_id,
    connector_id: row.connector_id,
    operation: row.operation,
    outcome: row.succeeded ? 'success' : 'error',
    duration_ms: row.duration_ms,
    error_code: row.error_code,
    cost_usd: row.cost_usd,
    invoked_at: new Date(row.invoked_at).toISOString(),
  };
}

const duration = z.number().nullable();

export const InstallationUsageSchema = z
  .object({
    installation_id: z.string(),
    connector_id: z.string(),
    period: z.literal('30d'),
    statistics: z.object({
      total_invocations: z.number().int(),
      successful_invocations: z.number().int(),
      failed_invocations: z.number().int(),
      average_duration_ms: duration,
      p50_duration_ms: duration,
      total_cost_usd: z.number(),
      last_invocation_at: z
        .string()
        .nullable()
        .openapi({ description: 'The last ever recorded, even before the period' }),
    }),
    daily_breakdown: z
      .array(
        z.object({
          date: z.string().openapi({ description: 'A UTC day, YYYY-MM-DD' }),
          invocations: z.number().int(),
          failed_invocations: z.number().int(),
          average_duration_ms: duration,
          p50_duration_ms: duration,
          cost_usd: z.number(),
        }),
      )
      .openapi({ description: 'The 30 UTC days ending today, oldest first; a day without invocations has zeros' }),
  })
  .openapi('InstallationUsage');

export function usageView(
  installation: { installation_id: string; connector_id: string },
  statistics: UsageTotals,
  days: UsageDay[],
): z.output<typeof InstallationUsageSchema> {
  return {
    installation_id: installation.installation_id,
    connector_id: installation.connector_id,
    period: '30d',
    statistics: {
      ...statistics,
      last_invocation_at: statistics.last_invocation_at ? new Date(statistics.last_invocation_at).toISOString() : null,
    },
    daily_breakdown: days.map((day) => ({
      date: day.date,
      invocations: day.invocations,
      failed_invocations: day.failed,
      average_duration_ms: day.average_duration_ms,
      p50_duration_ms: day.p50_duration_ms,
      cost_usd: day.cost_usd,
    })),
  };
}

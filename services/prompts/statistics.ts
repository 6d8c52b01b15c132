import type { Knex } from 'knex';
import type { Page, PageRequest } from '../../db/pagination';
import { listPromptModelAffinity, promptCallTotals, promptModelBreakdown } from '../../db/reasoning-calls';
import { COST_EFFICIENCY_WEIGHT, recommendedModel } from '../../domain/prompts/statistics';

export const PROMPT_STATISTICS_WINDOW_DAYS = 7;

function windowOf(now: Date) {
  return { start: new Date(now.getTime() - PROMPT_STATISTICS_WINDOW_DAYS * 86_400_000), end: now };
}

const zeroIfNull = (value: number | null) => value ?? 0;

/** The prompt's recorded calls over the last 7 days: totals, signals, and each model that answered them. */
export async function promptStatistics(db: Knex, organizationId: string, key: string, now: Date) {
  const window = windowOf(now);
  const [totals, models] = await Promise.all([
    promptCallTotals(db, organizationId, key, window.start, window.end),
    promptModelBreakdown(db, organizationId, key, window.start, window.end),
  ]);
  const breakdown = models.map((row) => ({
    model_id: row.model_id,
    provider: row.provider,
    call_count: row.call_count,
    avg_latency_ms: row.avg_latency_ms,
    avg_cost_usd: row.avg_cost_usd,
    avg_tokens: row.avg_tokens,
    success_rate: row.successes / row.call_count,
  }));
  return {
    prompt_key: key,
    window: { start: window.start.toISOString(), end: window.end.toISOString() },
    stats: {
      total_calls: totals.total_calls,
      avg_tokens: zeroIfNull(totals.avg_tokens),
      avg_cost_usd: zeroIfNull(totals.avg_cost_usd),
      avg_duration_ms: zeroIfNull(totals.avg_duration_ms),
      positive_signals: totals.positive_signals,
      negative_signals: totals.negative_signals,
      rephrases: totals.rephrases,
      corrections: totals.corrections,
    },
    model_breakdown: breakdown,
    recommended_model: recommendedModel(breakdown),
  };
}

/** A model's affinity with the prompt, as the affinity listing shows it. */
export interface PromptAffinityItem {
  prompt_key: string;
  model_id: string;
  provider: string;
  sample_size: number;
  stats: { avg_latency_ms: number; avg_cost_usd: number; avg_tokens: number; success_rate: number };
  affinity_score: number;
}

/** Each model's affinity with the prompt over the same window, best first, as a keyset page (the cursor opaque). */
export async function promptAffinity(
  db: Knex,
  organizationId: string,
  key: string,
  now: Date,
  page: Omit<PageRequest, 'sort'>,
): Promise<Page<PromptAffinityItem>> {
  const window = windowOf(now);
  const found = await listPromptModelAffinity(
    db,
    {
      organizationId,
      promptKey: key,
      since: window.start,
      until: window.end,
      costEfficiencyWeight: COST_EFFICIENCY_WEIGHT,
    },
    page,
  );
  return {
    ...found,
    data: found.data.map((row) => ({
      prompt_key: key,
      model_id: row.model_id,
      provider: row.provider,
      sample_size: row.sample_size,
      stats: {
        avg_latency_ms: row.avg_latency_ms,
        avg_cost_usd: row.avg_cost_usd,
        avg_tokens: row.avg_tokens,
        success_rate: row.success_rate,
      },
      affinity_score: row.affinity_score,
    })),
  };
}

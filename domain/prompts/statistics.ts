/**
 * Which model a prompt does best with, from its recorded calls. A call succeeded when its provider answered
 * and no negative or correction signal was recorded on it. A model is recommended only once it has answered
 * MINIMUM_SAMPLE calls of the prompt, so that three lucky calls do not outrank a hundred good ones.
 */
export const MINIMUM_SAMPLE = 10;
/** Share of the affinity score that cost efficiency can take away: a perfect but costliest model keeps 70 %. */
export const COST_EFFICIENCY_WEIGHT = 0.3;

export interface ModelSample {
  model_id: string;
  provider: string;
  call_count: number;
  success_rate: number;
  avg_cost_usd: number;
}

export function recommendedModel(samples: readonly ModelSample[]): string | null {
  const eligible = samples.filter((sample) => sample.call_count >= MINIMUM_SAMPLE);
  const best = [...eligible].sort(
    (a, b) =>
      b.success_rate - a.success_rate ||
      b.call_count - a.call_count ||
      a.avg_cost_usd - b.avg_cost_usd ||
      (a.model_id < b.model_id ? -1 : 1),
  )[0];
  return best?.model_id ?? null;
}

/** The cheapest model's average cost over this one's: 1 for the cheapest (and for all when every call was free). */
export function costEfficiency(sample: ModelSample, samples: readonly ModelSample[]): number {
  const cheapest = Math.min(...samples.map((other) => other.avg_cost_usd));
  if (sample.avg_cost_usd <= 0) return 1;
  return cheapest / sample.avg_cost_usd;
}

/** success_rate × (1 − w + w × cost_efficiency), w = COST_EFFICIENCY_WEIGHT. */
export function affinityScore(sample: ModelSample, samples: readonly ModelSample[]): number {
  const score =
    sample.success_rate * (1 - COST_EFFICIENCY_WEIGHT + COST_EFFICIENCY_WEIGHT * costEfficiency(sample, samples));
  return Math.round(score * 10_000) / 10_000;
}

/**
 * Which model answers a reasoning request: every routable model of the registry gets an explainable score
 * from its capability for the task, its fit to the complexity, its estimated cost, its latency and its
 * reliability, weighted by the caller's budget; the best is selected and the rest, ranked, are the
 * fallbacks. docs/platform.md states the formula.
 */
export const TASKS = ['reasoning', 'coding', 'summarization', 'creative', 'math', 'general'] as const;
export type Task = (typeof TASKS)[number];
export const COMPLEXITIES = ['simple', 'medium', 'complex'] as const;
export type Complexity = (typeof COMPLEXITIES)[number];
export const BUDGETS = ['minimize', 'optimize', 'unlimited'] as const;
export type Budget = (typeof BUDGETS)[number];
export const MODEL_STATUSES = ['active', 'deprecated', 'experimental'] as const;
export type ModelStatus = (typeof MODEL_STATUSES)[number];
export const CAPABILITIES = [
  'reasoning',
  'coding',
  'summarization',
  'multilingual',
  'math_reasoning',
  'creative_writing',
  'instruction_following',
] as const;
export type Capability = (typeof CAPABILITIES)[number];

export interface ModelProfile {
  model_id: string;
  provider: string;
  capabilities: Record<Capability, number>;
  context_length: number;
  performance: { avg_latency_ms: number; reliability: number; success_rate: number };
  cost: { input_cost_per_1k: number; output_cost_per_1k: number };
  status: ModelStatus;
}

export interface SelectionRequest {
  task: Task;
  complexity: Complexity;
  budget: Budget;
  /** Estimated from the messages (estimateTokens). */
  prompt_tokens: number;
  /** The caller's max_tokens, or the expected answer length when it gave none. */
  output_tokens: number;
}

/** The capabilities a task draws on, averaged. */
const TASK_CAPABILITIES: Record<Task, Capability[]> = {
  reasoning: ['reasoning'],
  coding: ['coding'],
  summarization: ['summarization'],
  creative: ['creative_writing'],
  math: ['math_reasoning'],
  general: ['reasoning', 'instruction_following'],
};

/** The capability score (0..10) a complexity asks for; each point short costs a tenth of the quality. */
export const COMPLEXITY_FLOOR: Record<Complexity, number> = { simple: 4, medium: 6, complex: 8 };

export const BUDGET_WEIGHTS: Record<Budget, { quality: number; cost: number; latency: number; reliability: number }> = {
  minimize: { quality: 0.3, cost: 0.45, latency: 0.1, reliability: 0.15 },
  optimize: { quality: 0.5, cost: 0.2, latency: 0.15, reliability: 0.15 },
  unlimited: { quality: 0.75, cost: 0, latency: 0.1, reliability: 0.15 },
};

/** Expected answer length when the caller gives no max_tokens. */
export const DEFAULT_OUTPUT_TOKENS = 512;
/** Ranked alternatives shown in a routing decision. */
export const MAX_ALTERNATIVES = 10;

/** About four characters a token for English text: a size estimate, not a tokenizer. */
export function estimateTokens(messages: ReadonlyArray<{ content: string }>): number {
  return messages.reduce((sum, message) => sum + Math.ceil(message.content.length / 4) + 4, 0);
}

export function costUsd(cost: ModelProfile['cost'], inputTokens: number, outputTokens: number): number {
  return (inputTokens / 1000) * cost.input_cost_per_1k + (outputTokens / 1000) * cost.output_cost_per_1k;
}

export interface ScoredModel {
  model_id: string;
  provider: string;
  score: number;
  factors: {
    capability: number;
    quality: number;
    estimated_cost_usd: number;
    cost: number;
    latency_ms: number;
    latency: number;
    reliability: number;
  };
}

export interface Exclusion {
  model_id: string;
  reason: 'status' | 'provider_not_configured' | 'context_too_small';
}

export type Selection =
  { ok: true; ranked: ScoredModel[]; excluded: Exclusion[]; reason: string } | { ok: false; excluded: Exclusion[] };

const round = (value: number, digits = 4) => Math.round(value * 10 ** digits) / 10 ** digits;

/** 1 for the best of the candidates, 0 for the worst, in between linearly; 1 for all when they are equal. */
function normalizedInverse(value: number, min: number, max: number): number {
  return max === min ? 1 : (max - value) / (max - min);
}

/** Prices span orders of magnitude, so cost is compared on a log scale; a millionth of a dollar stands for free. */
const logCost = (usd: number) => Math.log(usd + 1e-6);

export function capabilityFor(model: Pick<ModelProfile, 'capabilities'>, task: Task): number {
  const capabilities = TASK_CAPABILITIES[task];
  return capabilities.reduce((sum, capability) => sum + model.capabilities[capability], 0) / capabilities.length;
}

/**
 * Ranks the models that can take the request: active ones (experimental and deprecated ones only when
 * pinned), whose provider is configured, whose context holds the prompt and the answer.
 */
export function selectModel(
  models: readonly ModelProfile[],
  request: SelectionRequest,
  configuredProviders: ReadonlySet<string>,
): Selection {
  const excluded: Exclusion[] = [];
  const candidates = models.filter((model) => {
    const reason =
      model.status !== 'active'
        ? 'status'
        : !configuredProviders.has(model.provider)
          ? 'provider_not_configured'
          : model.context_length < request.prompt_tokens + request.output_tokens
            ? 'context_too_small'
            : undefined;
    if (reason) excluded.push({ model_id: model.model_id, reason });
    return reason === undefined;
  });
  if (candidates.length === 0) return { ok: false, excluded };
  const ranked = scoreModels(candidates, request);
  const best = ranked[0]!;
  return { ok: true, ranked, excluded, reason: explain(best, request) };
}

export function scoreModels(candidates: readonly ModelProfile[], request: SelectionRequest): ScoredModel[] {
  const weights = BUDGET_WEIGHTS[request.budget];
  const costs = candidates.map((model) => costUsd(model.cost, request.prompt_tokens, request.output_tokens));
  const latencies = candidates.map((model) => model.performance.avg_latency_ms);
  const logCosts = costs.map(logCost);
  const [minCost, maxCost] = [Math.min(...logCosts), Math.max(...logCosts)];
  const [minLatency, maxLatency] = [Math.min(...latencies), Math.max(...latencies)];
  const floor = COMPLEXITY_FLOOR[request.complexity];
  const scored = candidates.map((model, index): ScoredModel => {
    const capability = capabilityFor(model, request.task);
    const quality = Math.max(0, capability / 10 - Math.max(0, floor - capability) / 10);
    const cost = normalizedInverse(logCosts[index]!, minCost, maxCost);
    const latency = normalizedInverse(latencies[index]!, minLatency, maxLatency);
    const reliability = model.performance.reliability;
    const score =
      weights.quality * quality + weights.cost * cost + weights.latency * latency + weights.reliability * reliability;
    return {
      model_id: model.model_id,
      provider: model.provider,
      score: round(score),
      factors: {
        capability: round(capability, 2),
        quality: round(quality),
        estimated_cost_usd: round(costs[index]!, 8),
        cost: round(cost),
        latency_ms: latencies[index]!,
        latency: round(latency),
        reliability,
      },
    };
  });
  // Ties go to the lower model id, so the same registry always gives the same order.
  return scored.sort((a, b) => b.score - a.score || (a.model_id < b.model_id ? -1 : a.model_id > b.model_id ? 1 : 0));
}

function explain(best: ScoredModel, request: SelectionRequest): string {
  const { factors } = best;
  return (
    `${request.task} task of ${request.complexity} complexity under the ${request.budget} budget: ${best.model_id} scored highest ` +
    `(${best.score}: capability ${factors.capability}/10 against a floor of ${COMPLEXITY_FLOOR[request.complexity]}, ` +
    `estimated $${factors.estimated_cost_usd} for ~${request.prompt_tokens + request.output_tokens} tokens, ${factors.latency_ms} ms average latency, reliability ${factors.reliability})`
  );
}

/**
 * What a benchmark result does to the capability it measures: the score (0..100) on the capability's scale
 * (0..10) moves the capability a fifth of the way towards it. A benchmark of another type changes no score.
 */
export const BENCHMARK_WEIGHT = 0.2;
const BENCHMARK_CAPABILITY: Record<string, Capability> = {
  reasoning: 'reasoning',
  coding: 'coding',
  summarization: 'summarization',
  multilingual: 'multilingual',
  math: 'math_reasoning',
  math_reasoning: 'math_reasoning',
  creative: 'creative_writing',
  creative_writing: 'creative_writing',
  instruction_following: 'instruction_following',
};

export function benchmarkedCapabilities(
  capabilities: Record<Capability, number>,
  benchmarkType: string,
  score: number,
): { capability: Capability; from: number; to: number } | undefined {
  const capability = Object.hasOwn(BENCHMARK_CAPABILITY, benchmarkType)
    ? BENCHMARK_CAPABILITY[benchmarkType]
    : undefined;
  if (!capability) return undefined;
  const from = capabilities[capability];
  return { capability, from, to: round((1 - BENCHMARK_WEIGHT) * from + BENCHMARK_WEIGHT * (score / 10), 3) };
}

import {
  benchmarkedCapabilities,
  costUsd,
  estimateTokens,
  selectModel,
  type ModelProfile,
  type SelectionRequest,
} from '../../../domain/models/selection';
import { affinityScore, recommendedModel, type ModelSample } from '../../../domain/prompts/statistics';

const capabilities = (level: number) => ({
  reasoning: level,
  coding: level,
  summarization: level,
  multilingual: level,
  math_reasoning: level,
  creative_writing: level,
  instruction_following: level,
});

function model(
  model_id: string,
  fields: {
    level?: number;
    cost?: number;
    latency?: number;
    reliability?: number;
    context?: number;
    provider?: string;
    status?: ModelProfile['status'];
  } = {},
): ModelProfile {
  return {
    model_id,
    provider: fields.provider ?? 'local',
    capabilities: capabilities(fields.level ?? 7),
    context_length: fields.context ?? 8192,
    performance: {
      avg_latency_ms: fields.latency ?? 1000,
      reliability: fields.reliability ?? 0.99,
      success_rate: 0.99,
    },
    cost: { input_cost_per_1k: fields.cost ?? 0.001, output_cost_per_1k: (fields.cost ?? 0.001) * 2 },
    status: fields.status ?? 'active',
  };
}

const request = (fields: Partial<SelectionRequest> = {}): SelectionRequest => ({
  task: 'reasoning',
  complexity: 'medium',
  budget: 'optimize',
  prompt_tokens: 100,
  output_tokens: 100,
  ...fields,
});
const local = new Set(['local']);

describe('selectModel', () => {
  const cheapWeak = model('cheap-weak', { level: 4, cost: 0.0001, latency: 400 });
  const dearStrong = model('dear-strong', { level: 9.5, cost: 0.03, latency: 2500 });
  const middle = model('middle', { level: 7.5, cost: 0.002, latency: 900 });
  const registry = [cheapWeak, dearStrong, middle];

  it.each<[string, Partial<SelectionRequest>, string]>([
    [
      'a simple task under the minimize budget takes the cheap model',
      { complexity: 'simple', budget: 'minimize' },
      'cheap-weak',
    ],
    [
      'a complex task with an unlimited budget takes the strongest model',
      { complexity: 'complex', budget: 'unlimited' },
      'dear-strong',
    ],
    [
      'a medium task under the optimize budget takes the balanced model',
      { complexity: 'medium', budget: 'optimize' },
      'middle',
    ],
  ])('%s', (_name, fields, selected) => {
    const selection = selectModel(registry, request(fields), local);
    expect(selection.ok && selection.ranked[0]!.model_id).toBe(selected);
  });

  it('ranks every candidate and explains the choice with its factors', () => {
    const selection = selectModel(registry, request(), local);
    if (!selection.ok) throw new Error('expected a selection');
    expect(selection.ranked.map((scored) => scored.model_id).sort()).toEqual(['cheap-weak', 'dear-strong', 'middle']);
    expect(selection.ranked.map((scored) => scored.score)).toEqual(
      [...selection.ranked.map((scored) => scored.score)].sort((a, b) => b - a),
    );
    expect(selection.reason).toMatch(
      /^reasoning task of medium complexity under the optimize budget: middle scored highest \(0\.\d+: capability 7\.5\/10/,
    );
  });

  it.each<[string, ModelProfile, string]>([
    ['a deprecated model', model('old', { status: 'deprecated' }), 'status'],
    ['an experimental model', model('new', { status: 'experimental' }), 'status'],
    ['a model whose provider is not configured', model('far', { provider: 'elsewhere' }), 'provider_not_configured'],
    [
      'a model whose context cannot hold the prompt and the answer',
      model('small', { context: 150 }),
      'context_too_small',
    ],
  ])('leaves out %s', (_name, left, reason) => {
    const selection = selectModel([left, middle], request(), local);
    expect(selection).toMatchObject({ ok: true, excluded: [{ model_id: left.model_id, reason }] });
    expect(selection.ok && selection.ranked.map((scored) => scored.model_id)).toEqual(['middle']);
  });

  it('selects nothing when no model can take the request', () => {
    expect(selectModel([model('far', { provider: 'elsewhere' })], request(), local)).toEqual({
      ok: false,
      excluded: [{ model_id: 'far', reason: 'provider_not_configured' }],
    });
  });

  it('breaks ties by model id', () => {
    const selection = selectModel([model('b'), model('a')], request(), local);
    expect(selection.ok && selection.ranked.map((scored) => scored.model_id)).toEqual(['a', 'b']);
  });
});

describe('costs and sizes', () => {
  it('prices input and output tokens per thousand', () => {
    expect(costUsd({ input_cost_per_1k: 0.5, output_cost_per_1k: 1.5 }, 2000, 300)).toBeCloseTo(1.45, 10);
  });
  it('estimates four characters a token plus four per message', () => {
    expect(estimateTokens([{ content: 'x'.repeat(40) }, { content: 'abc' }])).toBe(10 + 4 + 1 + 4);
  });
});

describe('benchmarkedCapabilities', () => {
  it.each<[string, string, number, number | undefined]>([
    ['moves coding a fifth of the way to the score', 'coding', 100, 0.8 * 5 + 0.2 * 10],
    ['reads math as math_reasoning', 'math', 0, 0.8 * 5],
    ['changes nothing for another type', 'latency', 90, undefined],
  ])('%s', (_name, type, score, to) => {
    expect(benchmarkedCapabilities(capabilities(5), type, score)?.to).toBe(to);
  });
});

describe('prompt statistics', () => {
  const sample = (model_id: string, call_count: number, success_rate: number, avg_cost_usd: number): ModelSample => ({
    model_id,
    provider: 'local',
    call_count,
    success_rate,
    avg_cost_usd,
  });

  it('recommends the best success rate among models with the minimum sample', () => {
    expect(
      recommendedModel([sample('lucky', 3, 1, 0.01), sample('steady', 40, 0.9, 0.01), sample('worse', 40, 0.8, 0.001)]),
    ).toBe('steady');
  });
  it('recommends none below the minimum sample', () => {
    expect(recommendedModel([sample('lucky', 9, 1, 0.01)])).toBeNull();
  });
  it.each<[string, ModelSample, number]>([
    ['keeps the success rate for the cheapest model', sample('cheap', 10, 0.9, 0.001), 0.9],
    ['takes up to 30 % off for a costlier model', sample('dear', 10, 0.9, 0.004), 0.9 * (0.7 + 0.3 * 0.25)],
  ])('affinity %s', (_name, scored, expected) => {
    expect(affinityScore(scored, [sample('cheap', 10, 0.9, 0.001), sample('dear', 10, 0.9, 0.004)])).toBeCloseTo(
      expected,
      4,
    );
  });
});

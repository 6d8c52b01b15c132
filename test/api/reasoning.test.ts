import { createHash, randomUUID } from 'node:crypto';
import { appendProvenance } from '../../db/ledger';
import { completedCallWrites } from '../../db/reasoning-calls';
import { ORCH_CORE_DID } from '../../domain/provenance/records';
import { createLogger } from '../../lib/logger';
import { COMPLETION_GRACE_MS, recordInterruptedCalls } from '../../services/reasoning/interrupted';
import { REASONED_STEP } from '../../services/reasoning/record';
import { canonicalJson } from '../../domain/common/canonical-json';
import { startExtraApp, type ExtraApp } from '../support/app';
import { call, client, expectProblem } from '../support/http';
import { eventually } from '../support/eventually';
import { provenanceEntries, provenanceEntry } from '../support/ledger-records';
import { callsRecorded, recordedCall } from '../support/reasoning-calls';
import { startLocalProvider, type LocalProvider } from '../support/openai-provider';
import { startStack, type Stack } from '../support/stack';

let stack: Stack;
let admin: ReturnType<typeof client>;
let failing: LocalProvider;
let slow: LocalProvider;
let good: LocalProvider;
let unconfigured: ExtraApp;

const capabilities = (level: number) => ({
  reasoning: level,
  coding: level,
  summarization: level,
  multilingual: level,
  math_reasoning: level,
  creative_writing: level,
  instruction_following: level,
});
const model = (
  model_id: string,
  provider: string,
  level: number,
  cost = { input_cost_per_1k: 0.002, output_cost_per_1k: 0.006 },
) => ({
  model_id,
  provider,
  display_name: model_id,
  capabilities: capabilities(level),
  context_length: 32_000,
  performance: { avg_latency_ms: 800, reliability: 0.99, success_rate: 0.99 },
  cost,
});
const messages = [{ role: 'user', content: 'What is six times seven?' }];

beforeAll(async () => {
  failing = await startLocalProvider({ mode: 'fail', failStatus: 502 });
  slow = await startLocalProvider({ mode: 'slow', delayMs: 3_000 });
  good = await startLocalProvider({ mode: 'answer' });
  stack = await startStack({
    REASONING_PROVIDERS: JSON.stringify({
      failing: { base_url: failing.baseUrl },
      slow: { base_url: slow.baseUrl },
      good: { base_url: good.baseUrl, api_key: 'sk-local-good' },
    }),
    REASONING_ATTEMPT_TIMEOUT_MS: '400',
    REASONING_REGISTRY_CACHE_MS: '60000',
  });
  unconfigured = await startExtraApp(stack, { config: { REASONING_PROVIDERS: {} } });
  admin = client(stack.baseUrl, await stack.token());
  // Strongest first: the failing provider's model is selected, the slow one is the first alternative.
  for (const body of [
    model('fail-model', 'failing', 9.5),
    model('slow-model', 'slow', 9),
    model('good-model', 'good', 6.5),
    model('old-model', 'good', 9.9),
  ]) {
    expect((await admin('POST', '/v1/models', { json: body })).status).toBe(201);
  }
  expect((await admin('PATCH', '/v1/models/old-model', { json: { status: 'deprecated' } })).status).toBe(200);
});
afterAll(async () => {
  await unconfigured?.close();
  await stack?.stop();
  await Promise.all([failing, slow, good].map((provider) => provider?.close()));
});

describe('POST /v1/reason', () => {
  it('selects by score, falls back past a failing and a slow provider, and records cost, usage and provenance', async () => {
    const before = good.requests.length;
    const reply = await admin('POST', '/v1/reason', {
      json: {
        messages,
        task: 'math',
        complexity: 'complex',
        budget: 'unlimited',
        temperature: 0.2,
        max_tokens: 300,
        entity_id: 'ticket-7',
      },
    });
    expect(reply.status).toBe(200);
    expect(reply.body.data).toEqual({
      model: 'good-model',
      provider: 'good',
      text: 'The answer is 42.',
      usage: { inputTokens: 1200, outputTokens: 300, totalTokens: 1500 },
    });
    // 1,200 tokens in at $0.002/1k and 300 out at $0.006/1k.
    expect(reply.body.metadata.costUsd).toBeCloseTo(0.0024 + 0.0018, 12);
    expect(reply.body.metadata.routingDecision).toMatchObject({
      selected: 'fail-model',
      reason: expect.stringMatching(
        /^math task of complex complexity under the unlimited budget: fail-model scored highest/,
      ),
      alternatives: [
        expect.objectContaining({ model: 'slow-model', provider: 'slow' }),
        expect.objectContaining({ model: 'good-model', provider: 'good' }),
      ],
    });
    expect(reply.body.metadata.attempts).toEqual([
      {
        model: 'fail-model',
        provider: 'failing',
        outcome: 'failed',
        error: expect.stringContaining('502'),
        durationMs: expect.any(Number),
      },
      {
        model: 'slow-model',
        provider: 'slow',
        outcome: 'failed',
        error: 'the provider did not answer in time',
        durationMs: expect.any(Number),
      },
      { model: 'good-model', provider: 'good', outcome: 'succeeded', durationMs: expect.any(Number) },
    ]);
    expect(reply.body.metadata.durationMs).toBeGreaterThanOrEqual(400);

    const sent = good.requests.slice(before);
    expect(sent).toEqual([
      {
        authorization: 'Bearer sk-local-good',
        body: { model: 'good-model', messages, temperature: 0.2, max_tokens: 300 },
      },
    ]);

    const callId = reply.body.metadata.callId as string;
    const promptHash = createHash('sha256').update(canonicalJson(messages)).digest('hex');
    const row = await recordedCall(stack.database.db, callId);
    expect(row).toMatchObject({
      state: 'recorded',
      success: true,
      model_id: 'good-model',
      provider: 'good',
      input_tokens: 1200,
      output_tokens: 300,
      prompt_hash: promptHash,
      prompt_text: null,
      entity_id: 'ticket-7',
      organization_id: 'org_default',
    });
    const record = await provenanceEntry(stack.database.db, callId, 'reasoned');
    expect(record).toMatchObject({
      action: 'reasoning_completed',
      input_data: {
        prompt_hash: promptHash,
        task: 'math',
        complexity: 'complex',
        budget: 'unlimited',
        entity_id: 'ticket-7',
      },
      output_data: {
        model: 'good-model',
        provider: 'good',
        input_tokens: 1200,
        output_tokens: 300,
        cost_usd: reply.body.metadata.costUsd,
      },
    });
    expect(JSON.stringify(record)).not.toContain('six times seven');
  });

  it('counts the failed attempts in the model statistics', async () => {
    await callsRecorded(stack.database.db);
    const reply = await admin('GET', '/v1/models/fail-model/statistics');
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({
      model_id: 'fail-model',
      success_rate: 0,
      by_complexity: { complex: { count: reply.body.total_requests, success_rate: 0 } },
    });
    expect(reply.body.total_requests).toBeGreaterThanOrEqual(1);
    const goodStats = await admin('GET', '/v1/models/good-model/statistics');
    expect(goodStats.body).toMatchObject({ success_rate: 1, avg_cost_usd: expect.closeTo(0.0042, 10) });
  });

  it('honours a pinned model without fallback', async () => {
    const reply = await admin('POST', '/v1/reason', { json: { messages, pinned_model: 'good-model' } });
    expect(reply.status).toBe(200);
    expect(reply.body.metadata.routingDecision).toEqual({
      selected: 'good-model',
      reason: expect.stringContaining('pinned_model good-model'),
      alternatives: [],
    });
    const failed = await admin('POST', '/v1/reason', { json: { messages, pinned_model: 'fail-model' } });
    expectProblem(failed, 503, 'model_providers_unavailable');
    expect(failed.headers.get('retry-after')).toBe('30');
    expect(failed.body.attempts).toEqual([expect.objectContaining({ model: 'fail-model', outcome: 'failed' })]);
  });

  it.each([
    ['an unknown pinned model', 'no-such-model', 422, 'pinned_model_unknown'],
    ['a deprecated pinned model', 'old-model', 422, 'pinned_model_deprecated'],
  ])('refuses %s', async (_name, pinned, status, code) => {
    expectProblem(await admin('POST', '/v1/reason', { json: { messages, pinned_model: pinned } }), status, code);
  });

  it('refuses a request no model can hold', async () => {
    const reply = await admin('POST', '/v1/reason', { json: { messages, max_tokens: 40_000 } });
    expectProblem(reply, 422, 'no_model_available');
    expect(reply.body.detail).toContain('context too small');
  });

  it('says how to configure a provider when none is', async () => {
    const reply = await call(unconfigured.baseUrl, 'POST', '/v1/reason', {
      token: await stack.token(),
      json: { messages },
    });
    expectProblem(reply, 503, 'reasoning_not_configured');
    expect(reply.body.detail).toContain('REASONING_PROVIDERS');
    expect(reply.headers.get('retry-after')).toBe('300');
  });

  it('needs platform:write', async () => {
    expectProblem(
      await call(stack.baseUrl, 'POST', '/v1/reason', {
        token: await stack.token(['platform:read']),
        json: { messages },
      }),
      403,
      'insufficient_scope',
    );
  });

  it('puts the call on record as it starts, and completes the record when it ends', async () => {
    const entity_id = `in-flight-${Date.now()}`;
    // The slow provider answers after the attempt's timeout: the call is open on record meanwhile.
    const pending = admin('POST', '/v1/reason', { json: { messages, pinned_model: 'slow-model', entity_id } });
    const open = await eventually(
      () => stack.database.db('reasoning_calls').where({ entity_id }).first(),
      (row) => row !== undefined,
    );
    expect(open).toMatchObject({
      state: 'open',
      success: false,
      model_id: null,
      routing_decision: { selected: 'slow-model' },
    });
    const failed = await pending;
    expectProblem(failed, 503, 'model_providers_unavailable');
    expect(failed.body.call_id).toBe(open.call_id);
    expect(await recordedCall(stack.database.db, open.call_id as string)).toMatchObject({
      state: 'recorded',
      success: false,
    });
    expect(await provenanceEntry(stack.database.db, open.call_id as string, 'reasoned')).toMatchObject({
      action: 'reasoning_failed',
    });
  });

  it('records a call its process left open as interrupted, once, and a late completion changes nothing', async () => {
    const call_id = `rsn_${randomUUID()}`;
    const startedAt = new Date(Date.now() - 90_000 - COMPLETION_GRACE_MS - 1000);
    await stack.database.db('reasoning_calls').insert({
      call_id,
      organization_id: 'org_default',
      principal_id: 'sub:crashed',
      task: 'general',
      complexity: 'simple',
      budget: 'optimize',
      prompt_hash: 'f'.repeat(64),
      success: false,
      input_tokens: 0,
      output_tokens: 0,
      cost_usd: 0,
      duration_ms: 0,
      streamed: false,
      routing_decision: JSON.stringify({ selected: 'good-model' }),
      state: 'open',
      created_at: startedAt,
    });
    const sweep = {
      db: stack.database.db,
      settings: { totalTimeoutMs: 90_000 },
      logger: createLogger({ level: 'error', silent: true }),
    };
    expect(await recordInterruptedCalls(sweep)).toBeGreaterThanOrEqual(1);
    expect(await stack.database.db('reasoning_calls').where({ call_id }).first()).toMatchObject({
      state: 'interrupted',
    });
    expect(await provenanceEntry(stack.database.db, call_id, 'reasoned')).toMatchObject({
      action: 'reasoning_interrupted',
      input_data: { principal: 'sub:crashed', prompt_hash: 'f'.repeat(64) },
    });

    const late = {
      call_id,
      success: true,
      model_id: 'good-model',
      provider: 'good',
      input_tokens: 1,
      output_tokens: 1,
      cost_usd: 0.1,
      duration_ms: 5,
    };
    const entry = {
      subject_id: call_id,
      step_id: REASONED_STEP,
      timestamp: new Date().toISOString(),
      actor: { type: 'orch_core' as const, did: ORCH_CORE_DID },
      action: 'reasoning_completed',
      input_data: {},
      output_data: {},
      reasoning: 'late',
    };
    await appendProvenance(
      stack.database.db,
      { entry },
      completedCallWrites(late, [
        { ...late, attempt: 1, organization_id: 'org_default', complexity: 'simple', error: null },
      ]),
    );
    expect(await stack.database.db('reasoning_calls').where({ call_id }).first()).toMatchObject({
      state: 'interrupted',
      success: false,
      model_id: null,
    });
    expect(await stack.database.db('reasoning_attempts').where({ call_id })).toEqual([]);
    expect((await provenanceEntries(stack.database.db, call_id)).map((record) => record.action)).toEqual([
      'reasoning_interrupted',
    ]);
    expect(await recordInterruptedCalls(sweep)).toBe(0);
  });

  it('records signals on a call, and refuses an unknown call', async () => {
    const answered = await admin('POST', '/v1/reason', { json: { messages, pinned_model: 'good-model' } });
    const callId = answered.body.metadata.callId as string;
    const signal = await admin('POST', `/v1/reasoning-calls/${callId}/signals`, {
      json: { signal: 'correction', note: 'it was 42, but late' },
    });
    expect(signal.status).toBe(201);
    expect(signal.body).toMatchObject({ call_id: callId, signal: 'correction', note: 'it was 42, but late' });
    expectProblem(
      await admin('POST', '/v1/reasoning-calls/rsn_00000000-0000-0000-0000-000000000000/signals', {
        json: { signal: 'positive' },
      }),
      404,
      'reasoning_call_not_found',
    );
  });
});

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read arbitrary event shapes
function events(text: string): Array<{ event: string; data: any }> {
  return text
    .split('\n\n')
    .filter(Boolean)
    .map((block) => {
      const event = /^event: (.*)$/m.exec(block)![1]!;
      const data = JSON.parse(/^data: (.*)$/m.exec(block)![1]!) as unknown;
      return { event, data };
    });
}

describe('POST /v1/reason/stream', () => {
  it('streams the answer after falling back, then reports usage and cost once recorded', async () => {
    const reply = await admin('POST', '/v1/reason/stream', {
      json: { messages, task: 'math', complexity: 'complex', budget: 'unlimited' },
    });
    expect(reply.status).toBe(200);
    expect(reply.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const stream = events(reply.text);
    expect(stream[0]).toMatchObject({
      event: 'routing',
      data: { model: 'good-model', provider: 'good', routingDecision: { selected: 'fail-model' } },
    });
    const text = stream
      .filter((item) => item.event === 'delta')
      .map((item) => item.data.text as string)
      .join('');
    expect(text).toBe('The answer is 42.');
    const done = stream[stream.length - 1]!;
    expect(done).toMatchObject({
      event: 'done',
      data: {
        success: true,
        data: { model: 'good-model', usage: { inputTokens: 1200, outputTokens: 300, totalTokens: 1500 } },
      },
    });
    expect(done.data.metadata.costUsd).toBeCloseTo(0.0042, 12);
    expect(done.data.metadata.attempts.map((attempt: { outcome: string }) => attempt.outcome)).toEqual([
      'failed',
      'failed',
      'succeeded',
    ]);
    const row = await stack.database.db('reasoning_calls').where({ call_id: done.data.metadata.callId }).first();
    expect(row).toMatchObject({ streamed: true, success: true, model_id: 'good-model', input_tokens: 1200 });
  });

  it('estimates usage when the provider reports none', async () => {
    good.behaviour = { mode: 'answer', usage: null, text: 'x'.repeat(40) };
    try {
      const reply = await admin('POST', '/v1/reason/stream', { json: { messages, pinned_model: 'good-model' } });
      const done = events(reply.text).pop()!;
      expect(done.data.metadata.usageEstimated).toBe(true);
      expect(done.data.data.usage.outputTokens).toBe(10);
    } finally {
      good.behaviour = { mode: 'answer' };
    }
  });

  it('answers a problem, not a stream, when no provider accepts', async () => {
    expectProblem(
      await admin('POST', '/v1/reason/stream', { json: { messages, pinned_model: 'fail-model' } }),
      503,
      'model_providers_unavailable',
    );
  });
});

describe('the model registry', () => {
  it('lists with filters and reads one model', async () => {
    const all = await admin('GET', '/v1/models?provider=good');
    expect(all.body.models.map((item: { model_id: string }) => item.model_id)).toEqual(['good-model']);
    const deprecated = await admin('GET', '/v1/models?status=deprecated');
    expect(deprecated.body.models.map((item: { model_id: string }) => item.model_id)).toEqual(['old-model']);
    const strong = await admin('GET', '/v1/models?min_reasoning=9');
    expect(strong.body.models.map((item: { model_id: string }) => item.model_id)).toEqual(['fail-model', 'slow-model']);
    expectProblem(await admin('GET', '/v1/models?min_coding=11'), 400, 'validation_failed');
    expectProblem(await admin('GET', '/v1/models/nope'), 404, 'model_not_found');
  });

  it('refuses a second model with the same id, and administration without platform:admin', async () => {
    expectProblem(await admin('POST', '/v1/models', { json: model('good-model', 'good', 5) }), 409, 'model_exists');
    expectProblem(
      await call(stack.baseUrl, 'POST', '/v1/models', {
        token: await stack.token(['platform:write']),
        json: model('other', 'good', 5),
      }),
      403,
      'insufficient_scope',
    );
  });

  it('applies a benchmark to the count, the time and the capability it measures', async () => {
    const reply = await admin('POST', '/v1/models/benchmarks', {
      json: {
        model_id: 'slow-model',
        benchmark_type: 'coding',
        benchmark_suite: 'humaneval',
        score: 50,
        run_at: '2026-11-20T10:00:00Z',
        test_cases_passed: 82,
        test_cases_total: 164,
      },
    });
    expect(reply.status).toBe(201);
    expect(reply.body).toMatchObject({
      id: expect.stringMatching(/^bmk_/),
      score: 50,
      model: {
        benchmark_count: 1,
        last_benchmarked_at: '2026-11-20T10:00:00.000Z',
        capabilities: { coding: 0.8 * 9 + 0.2 * 5, reasoning: 9 },
      },
    });
    const refused = await admin('POST', '/v1/models/benchmarks', {
      json: {
        model_id: 'slow-model',
        benchmark_type: 'coding',
        benchmark_suite: 'x',
        score: 50,
        test_cases_passed: 5,
        test_cases_total: 4,
      },
    });
    expectProblem(refused, 400, 'validation_failed');
    expectProblem(
      await admin('POST', '/v1/models/benchmarks', {
        json: { model_id: 'slow-model', benchmark_type: 'coding', benchmark_suite: 'x', score: 101 },
      }),
      400,
      'validation_failed',
    );
  });
});

import { call, client, expectProblem } from '../support/http';
import { provenanceEntries } from '../support/ledger-records';
import { callsRecorded } from '../support/reasoning-calls';
import { startLocalProvider, type LocalProvider } from '../support/openai-provider';
import { startStack, type Stack } from '../support/stack';

let stack: Stack;
let admin: ReturnType<typeof client>;
let provider: LocalProvider;

const publish = (key: string, version: string, extra: Record<string, unknown> = {}) =>
  admin('POST', `/v1/prompts/${encodeURIComponent(key)}/versions`, {
    json: { version, content: `${key} ${version}`, meta: { namespace: 'support', scope: 'team' }, ...extra },
  });

beforeAll(async () => {
  provider = await startLocalProvider({ mode: 'answer' });
  stack = await startStack({ REASONING_PROVIDERS: JSON.stringify({ local: { base_url: provider.baseUrl } }) });
  admin = client(stack.baseUrl, await stack.token());
  const levels = {
    reasoning: 7,
    coding: 7,
    summarization: 7,
    multilingual: 7,
    math_reasoning: 7,
    creative_writing: 7,
    instruction_following: 7,
  };
  for (const [model_id, cost] of [
    ['local-a', 0.001],
    ['local-b', 0.004],
  ] as const) {
    const created = await admin('POST', '/v1/models', {
      json: {
        model_id,
        provider: 'local',
        display_name: model_id,
        capabilities: levels,
        context_length: 8192,
        performance: { avg_latency_ms: 500, reliability: 0.99, success_rate: 0.99 },
        cost: { input_cost_per_1k: cost, output_cost_per_1k: cost },
      },
    });
    expect(created.status).toBe(201);
  }
});
afterAll(async () => {
  await stack?.stop();
  await provider?.close();
});

describe('publishing and reading versions', () => {
  it('makes each published version active and lists versions in semver order', async () => {
    for (const version of ['1.0.0', '1.10.0', '2.0.0-beta.1', '1.2.0'])
      expect((await publish('triage', version)).status).toBe(201);
    const active = await admin('GET', '/v1/prompts/triage');
    expect(active.body).toMatchObject({
      prompt_uri: 'prompt://org/org_default/triage',
      prompt_key: 'triage',
      org_id: 'org_default',
      version: '1.2.0',
      status: 'active',
      content: 'triage 1.2.0',
    });
    const page1 = await admin('GET', '/v1/prompts/triage/versions?limit=3');
    expect(page1.body.data.map((version: { version: string }) => version.version)).toEqual([
      '1.0.0',
      '1.2.0',
      '1.10.0',
    ]);
    expect(page1.body.pagination).toMatchObject({ has_more: true, total_count: 4 });
    const page2 = await admin(
      'GET',
      `/v1/prompts/triage/versions?limit=3&cursor=${page1.body.pagination.next_cursor as string}`,
    );
    expect(page2.body).toMatchObject({
      data: [{ version: '2.0.0-beta.1' }],
      pagination: { has_more: false, next_cursor: null },
    });
    expect((await admin('GET', '/v1/prompts/triage/versions/1.10.0')).body).toMatchObject({
      version: '1.10.0',
      content: 'triage 1.10.0',
    });
    const records = await provenanceEntries(stack.database.db, 'prompt://org/org_default/triage');
    expect(
      records.filter((record) => record.action === 'prompt_published').map((record) => record.output_data.version),
    ).toEqual(['1.0.0', '1.10.0', '2.0.0-beta.1', '1.2.0']);
  });

  it('reads by URL-encoded URI, and not another organization’s', async () => {
    expect(
      (await admin('GET', `/v1/prompts/${encodeURIComponent('prompt://org/org_default/triage')}`)).body.version,
    ).toBe('1.2.0');
    expectProblem(
      await admin('GET', `/v1/prompts/${encodeURIComponent('prompt://org/org_other/triage')}`),
      404,
      'prompt_not_found',
    );
    expectProblem(await admin('GET', '/v1/prompts/unknown'), 404, 'prompt_not_found');
    expectProblem(await admin('GET', '/v1/prompts/triage/versions/9.9.9'), 404, 'prompt_version_not_found');
  });

  it.each([
    ['a published version again', { version: '1.0.0' }, 409, 'prompt_version_exists'],
    ['a version of the same precedence', { version: '1.0.0+build.7' }, 409, 'prompt_version_exists'],
    ['a version that is not semver', { version: '1.0' }, 400, 'validation_failed'],
    [
      'an input_schema that is not JSON Schema',
      { version: '3.0.0', input_schema: { type: 'nonsense' } },
      400,
      'validation_failed',
    ],
    [
      'extends_uri of no prompt',
      { version: '3.0.0', extends_uri: 'prompt://org/org_default/nothing' },
      422,
      'prompt_extends_invalid',
    ],
    [
      'extends_uri of another organization',
      { version: '3.0.0', extends_uri: 'prompt://org/org_other/triage' },
      422,
      'prompt_extends_invalid',
    ],
  ])('refuses %s', async (_name, body, status, code) => {
    expectProblem(await publish('triage', body.version, body), status, code);
  });
});

describe('rollback and deprecation', () => {
  it('rolls back to a version, refuses a deprecated or missing one, and deprecates the active one only with a successor', async () => {
    const rolled = await admin('POST', '/v1/prompts/triage/rollback', { json: { target_version: '1.0.0' } });
    expect(rolled.body).toEqual({
      prompt_uri: 'prompt://org/org_default/triage',
      active_version: '1.0.0',
      rolled_back_at: expect.any(String),
    });
    const deprecated = await admin('POST', '/v1/prompts/triage/versions/1.10.0/deprecate', { json: {} });
    expect(deprecated.body).toMatchObject({
      version: '1.10.0',
      status: 'deprecated',
      deprecated_at: expect.any(String),
      active_version: '1.0.0',
    });
    expectProblem(
      await admin('POST', '/v1/prompts/triage/rollback', { json: { target_version: '1.10.0' } }),
      409,
      'prompt_version_deprecated',
    );
    expectProblem(
      await admin('POST', '/v1/prompts/triage/rollback', { json: { target_version: '7.0.0' } }),
      404,
      'prompt_version_not_found',
    );
    expectProblem(
      await admin('POST', '/v1/prompts/triage/versions/1.0.0/deprecate', { json: {} }),
      409,
      'prompt_version_active',
    );
    expectProblem(
      await admin('POST', '/v1/prompts/triage/versions/1.0.0/deprecate', { json: { successor_version: '1.10.0' } }),
      409,
      'prompt_version_deprecated',
    );
    const replaced = await admin('POST', '/v1/prompts/triage/versions/1.0.0/deprecate', {
      json: { successor_version: '1.2.0' },
    });
    expect(replaced.body).toMatchObject({ version: '1.0.0', status: 'deprecated', active_version: '1.2.0' });
    expect((await admin('GET', '/v1/prompts/triage')).body.version).toBe('1.2.0');
    const actions = (await provenanceEntries(stack.database.db, 'prompt://org/org_default/triage')).map(
      (record) => record.action,
    );
    expect(actions.filter((action) => action !== 'prompt_published')).toEqual([
      'prompt_rolled_back',
      'prompt_deprecated',
      'prompt_deprecated',
    ]);
  });
});

describe('extends_uri', () => {
  it('resolves what a version extends and refuses a cycle', async () => {
    expect((await publish('base', '1.0.0')).status).toBe(201);
    expect((await publish('child', '1.0.0', { extends_uri: 'prompt://org/org_default/base' })).status).toBe(201);
    expectProblem(
      await publish('base', '1.1.0', { extends_uri: 'prompt://org/org_default/child' }),
      422,
      'prompt_extends_cycle',
    );
    expect((await admin('GET', '/v1/prompts/base')).body.version).toBe('1.0.0');
    expect((await publish('base', '1.1.0', { extends_uri: 'prompt://org/org_default/triage@1.2.0' })).status).toBe(201);
  });
});

describe('per-key grants', () => {
  it('lists only what prompt:read grants cover, and refuses the rest', async () => {
    expect((await publish('support-refunds', '1.0.0')).status).toBe(201);
    const reader = client(stack.baseUrl, await stack.token(['prompt:read:support-*', 'prompt:read:base']));
    const listed = await reader('GET', '/v1/prompts');
    expect(listed.body.data.map((prompt: { prompt_key: string }) => prompt.prompt_key)).toEqual([
      'base',
      'support-refunds',
    ]);
    expect(listed.body.pagination.total_count).toBe(2);
    expect((await reader('GET', '/v1/prompts/support-refunds')).status).toBe(200);
    const refused = await reader('GET', '/v1/prompts/triage');
    expectProblem(refused, 403, 'insufficient_scope');
    expect(refused.body.required_scope).toBe('prompt:read:triage');
    expectProblem(
      await reader('POST', '/v1/prompts/support-refunds/versions', {
        json: { version: '2.0.0', content: 'x', meta: {} },
      }),
      403,
      'insufficient_scope',
    );
    const publisher = client(stack.baseUrl, await stack.token(['prompt:publish:support-*']));
    expect(
      (
        await publisher('POST', '/v1/prompts/support-refunds/versions', {
          json: { version: '2.0.0', content: 'x', meta: {} },
        })
      ).status,
    ).toBe(201);
    expect(
      (await call(stack.baseUrl, 'GET', '/v1/prompts', { token: await stack.token(['platform:read']) })).body.data,
    ).toEqual([]);
    expectProblem(await call(stack.baseUrl, 'GET', '/v1/prompts'), 401, 'unauthorized');
  });

  it('takes prompt grants in service accounts', async () => {
    const created = await admin('POST', '/v1/orch/service-accounts', {
      json: { name: 'prompt reader', scopes: ['prompt:read:support-*'] },
    });
    expect(created.status).toBe(201);
    expectProblem(
      await admin('POST', '/v1/orch/service-accounts', { json: { name: 'bad', scopes: ['prompt:write:x'] } }),
      400,
      'validation_failed',
    );
  });
});

describe('prompts in reasoning calls, and their statistics', () => {
  it('leads the messages with the composed prompt, checks its variables, and counts calls and signals', async () => {
    const published = await publish('greeting', '1.0.0', {
      content: 'Greet {{name}} in {{language}}.',
      input_schema: {
        type: 'object',
        required: ['name'],
        properties: { name: { type: 'string' }, language: { type: 'string' } },
      },
    });
    expect(published.status).toBe(201);
    const before = provider.requests.length;
    const reply = await admin('POST', '/v1/reason', {
      json: {
        messages: [{ role: 'user', content: 'hi' }],
        prompt_key: 'greeting',
        prompt_variables: { name: 'Ada', language: 'French' },
        pinned_model: 'local-a',
      },
    });
    expect(reply.status).toBe(200);
    expect(provider.requests[before]!.body.messages).toEqual([
      { role: 'system', content: 'Greet Ada in French.' },
      { role: 'user', content: 'hi' },
    ]);
    const invalid = await admin('POST', '/v1/reason', {
      json: { messages: [{ role: 'user', content: 'hi' }], prompt_key: 'greeting', prompt_variables: { name: 7 } },
    });
    expectProblem(invalid, 422, 'prompt_variables_invalid');
    expect(invalid.body.errors).toEqual([expect.objectContaining({ field: 'prompt_variables.name', code: 'type' })]);

    // Ten more calls on local-b make it eligible; one negative signal on local-a's first call.
    for (let index = 0; index < 10; index += 1) {
      expect(
        (
          await admin('POST', '/v1/reason', {
            json: {
              messages: [{ role: 'user', content: `hi ${index}` }],
              prompt_key: 'greeting',
              prompt_variables: { name: 'Ada' },
              pinned_model: 'local-b',
            },
          })
        ).status,
      ).toBe(200);
    }
    expect(
      (
        await admin('POST', `/v1/reasoning-calls/${reply.body.metadata.callId as string}/signals`, {
          json: { signal: 'negative' },
        })
      ).status,
    ).toBe(201);

    await callsRecorded(stack.database.db);
    const statistics = await admin('GET', '/v1/prompts/greeting/statistics');
    expect(statistics.status).toBe(200);
    expect(statistics.body).toMatchObject({
      prompt_key: 'greeting',
      stats: {
        total_calls: 11,
        avg_tokens: 1500,
        negative_signals: 1,
        positive_signals: 0,
        rephrases: 0,
        corrections: 0,
      },
      recommended_model: 'local-b',
    });
    expect(statistics.body.model_breakdown).toEqual([
      expect.objectContaining({ model_id: 'local-a', call_count: 1, success_rate: 0 }),
      expect.objectContaining({
        model_id: 'local-b',
        call_count: 10,
        success_rate: 1,
        avg_cost_usd: expect.closeTo(0.006, 10),
      }),
    ]);
    const affinity = await admin('GET', '/v1/prompts/greeting/affinity?limit=1');
    expect(affinity.body.data).toEqual([
      expect.objectContaining({
        model_id: 'local-b',
        sample_size: 10,
        affinity_score: expect.closeTo(0.7 + 0.3 * (0.0015 / 0.006), 4),
      }),
    ]);
    expect(affinity.body.pagination).toMatchObject({ has_more: true, total_count: 2 });
    const next = await admin(
      'GET',
      `/v1/prompts/greeting/affinity?limit=1&cursor=${affinity.body.pagination.next_cursor as string}`,
    );
    expect(next.body.data).toEqual([expect.objectContaining({ model_id: 'local-a', affinity_score: 0 })]);
    expectProblem(await admin('GET', '/v1/prompts/greeting/affinity?cursor=bogus'), 400, 'invalid_cursor');
  });
});

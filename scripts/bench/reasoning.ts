/**
 * `npm run bench -- reasoning`: model selection decisions per second over 500 models; the time POST /v1/reason
 * adds to a direct call of the same local provider (p50/p99, target ≤ 5 ms at p50); prompt resolution
 * (GET /v1/prompts/{key}) p99 with 10,000 prompts × 20 versions. The API runs in this process (buildApp, as the
 * tests build it) against the benchmark's own Postgres; the provider is a local server answering at once.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { Client } from '@temporalio/client';
import { buildApp } from '../../api/app';
import { loadConfig, tokenIssuer } from '../../app/config';
import { closeAppDeps, createAppDeps } from '../../app/deps';
import { migrateToLatest } from '../../db/migrate';
import { DEFAULT_ORGANIZATION_ID } from '../../domain/common/organizations';
import { CAPABILITIES, selectModel, type ModelProfile } from '../../domain/models/selection';
import { parseSemver, semverSortKey } from '../../domain/prompts/semver';
import { closeServer, listen } from '../../lib/http-server';
import { createLogger } from '../../lib/logger';
import { createKeyRing, ensureSigningKey } from '../../services/identity/issuance/key-ring';
import { issueAccessToken } from '../../services/identity/issuance/access-tokens';
import { SCOPES } from '../../services/identity/scopes';
import { registerTokenSubject } from '../../services/identity/issuance/subjects';
import { createBenchDatabase } from './database';
import { percentile } from './load';
import { onTearDown, runSuite, say } from './stack';

const TARGET_P50_OVERHEAD_MS = 5;

function profiles(count: number): ModelProfile[] {
  // A fixed pseudo-random spread of scores, prices and latencies, the same on every run.
  let seed = 7;
  const next = () => (seed = (seed * 16807) % 2147483647) / 2147483647;
  return Array.from({ length: count }, (_, index) => ({
    model_id: `model-${index}`,
    provider: `provider-${index % 5}`,
    capabilities: Object.fromEntries(
      CAPABILITIES.map((capability) => [capability, Math.round(next() * 100) / 10]),
    ) as ModelProfile['capabilities'],
    context_length: [8192, 32_768, 131_072][index % 3]!,
    performance: {
      avg_latency_ms: 200 + Math.round(next() * 5000),
      reliability: 0.9 + next() / 10,
      success_rate: 0.95,
    },
    cost: { input_cost_per_1k: next() / 100, output_cost_per_1k: next() / 50 },
    status: index % 17 === 0 ? 'deprecated' : 'active',
  }));
}

function selectionsPerSecond(): { decisions_per_second: number; models: number } {
  const models = profiles(500);
  const providers = new Set(['provider-0', 'provider-1', 'provider-2', 'provider-3', 'provider-4']);
  const request = {
    task: 'coding',
    complexity: 'complex',
    budget: 'optimize',
    prompt_tokens: 1200,
    output_tokens: 512,
  } as const;
  for (let warm = 0; warm < 200; warm += 1) selectModel(models, request, providers);
  const started = performance.now();
  let decisions = 0;
  while (performance.now() - started < 3000) {
    selectModel(models, request, providers);
    decisions += 1;
  }
  return {
    decisions_per_second: Math.round(decisions / ((performance.now() - started) / 1000)),
    models: models.length,
  };
}

const ANSWER = JSON.stringify({
  choices: [{ index: 0, message: { role: 'assistant', content: 'ok' } }],
  usage: { prompt_tokens: 20, completion_tokens: 1 },
});

async function startProvider(): Promise<{ baseUrl: string; server: Server }> {
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => res.writeHead(200, { 'content-type': 'application/json' }).end(ANSWER));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`, server };
}

async function timed(count: number, send: () => Promise<Response>): Promise<{ p50_ms: number; p99_ms: number }> {
  const times: number[] = [];
  for (let index = 0; index < count; index += 1) {
    const started = performance.now();
    const response = await send();
    await response.text();
    if (!response.ok) throw new Error(`a measured request answered ${response.status}`);
    times.push(performance.now() - started);
  }
  times.sort((a, b) => a - b);
  return {
    p50_ms: Math.round(percentile(times, 50) * 100) / 100,
    p99_ms: Math.round(percentile(times, 99) * 100) / 100,
  };
}

async function main(): Promise<void> {
  say('selection: 500 models, coding / complex / optimize…');
  const selection = selectionsPerSecond();
  say(`  ${selection.decisions_per_second} decisions/s`);

  const database = await createBenchDatabase();
  onTearDown(() => database.destroy());
  await migrateToLatest(database.db);
  await ensureSigningKey(database.db);
  const provider = await startProvider();
  onTearDown(() => closeServer(provider.server));
  const config = loadConfig({
    DATABASE_URL: database.url,
    LOG_LEVEL: 'error',
    RATE_LIMIT_DEFAULT: '100000000',
    REASONING_PROVIDERS: JSON.stringify({ local: { base_url: provider.baseUrl } }),
  });
  const deps = createAppDeps(config, {
    db: database.db,
    temporal: new Client(),
    logger: createLogger({ level: 'error', silent: true }),
  });
  onTearDown(() => closeAppDeps(deps));
  const server = await listen(buildApp(deps), { host: '127.0.0.1', port: 0 });
  onTearDown(() => closeServer(server));
  const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  await registerTokenSubject(database.db, {
    subject: 'bench',
    organizationId: DEFAULT_ORGANIZATION_ID,
    scopes: SCOPES,
  });
  const token = await issueAccessToken(
    createKeyRing(database.db),
    { issuer: tokenIssuer(config), audience: config.AUTH_AUDIENCE },
    { subject: 'bench', scopes: SCOPES, organizationId: DEFAULT_ORGANIZATION_ID, ttlSeconds: 3600 },
  );
  const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
  const levels = Object.fromEntries(CAPABILITIES.map((capability) => [capability, 7]));
  for (let index = 0; index < 20; index += 1) {
    const created = await fetch(`${baseUrl}/v1/models`, {
      method: 'POST',
      headers,
      body: JSON.stringify({
        model_id: `local-${index}`,
        provider: 'local',
        display_name: `local ${index}`,
        capabilities: levels,
        context_length: 8192,
        performance: { avg_latency_ms: 100 + index, reliability: 0.99, success_rate: 0.99 },
        cost: { input_cost_per_1k: 0.001 * (index + 1), output_cost_per_1k: 0.002 },
      }),
    });
    if (created.status !== 201) throw new Error(`registering a model answered ${created.status}`);
  }

  const messages = [{ role: 'user', content: 'Summarize the ticket in one line.' }];
  const REQUESTS = 1000;
  say(
    `overhead: ${REQUESTS} sequential calls direct to the provider, then through POST /v1/reason (20 models of that provider)…`,
  );
  const directBody = JSON.stringify({ model: 'local-0', messages });
  const reasonBody = JSON.stringify({ messages, task: 'summarization', complexity: 'simple' });
  await timed(100, () =>
    fetch(`${provider.baseUrl}/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: directBody,
    }),
  );
  await timed(100, () => fetch(`${baseUrl}/v1/reason`, { method: 'POST', headers, body: reasonBody }));
  const direct = await timed(REQUESTS, () =>
    fetch(`${provider.baseUrl}/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: directBody,
    }),
  );
  const reasoned = await timed(REQUESTS, () =>
    fetch(`${baseUrl}/v1/reason`, { method: 'POST', headers, body: reasonBody }),
  );
  const overhead = {
    p50_ms: Math.round((reasoned.p50_ms - direct.p50_ms) * 100) / 100,
    p99_ms: Math.round((reasoned.p99_ms - direct.p99_ms) * 100) / 100,
  };
  say(
    `  direct p50 ${direct.p50_ms} ms p99 ${direct.p99_ms} ms; /v1/reason p50 ${reasoned.p50_ms} ms p99 ${reasoned.p99_ms} ms`,
  );
  say(
    `  added: p50 ${overhead.p50_ms} ms (target ≤ ${TARGET_P50_OVERHEAD_MS} ms: ${overhead.p50_ms <= TARGET_P50_OVERHEAD_MS ? 'met' : 'NOT met'}), p99 ${overhead.p99_ms} ms`,
  );

  const PROMPTS = 10_000;
  const VERSIONS = 20;
  say(`prompt resolution: ${PROMPTS} prompts × ${VERSIONS} versions…`);
  const sortKeys = Array.from({ length: VERSIONS }, (_, minor) => semverSortKey(parseSemver(`1.${minor}.0`)!));
  await database.db.raw(
    `insert into prompts (organization_id, prompt_key, active_version) select 'org_default', 'prompt-' || p, '1.${VERSIONS - 1}.0' from generate_series(1, ?) p`,
    [PROMPTS],
  );
  await database.db.raw(
    `insert into prompt_versions (organization_id, prompt_key, version, version_sort, content, meta, published_by, status)
     select 'org_default', 'prompt-' || p, '1.' || v || '.0', (?::text[])[v + 1], 'You are prompt ' || p || ' version ' || v, '{}'::jsonb, 'bench', 'active'
     from generate_series(1, ?) p cross join generate_series(0, ?) v`,
    [sortKeys, PROMPTS, VERSIONS - 1],
  );
  await database.db.raw('analyze prompts; analyze prompt_versions');
  let seed = 11;
  const randomKey = () => `prompt-${1 + ((seed = (seed * 16807) % 2147483647) % PROMPTS)}`;
  await timed(100, () => fetch(`${baseUrl}/v1/prompts/${randomKey()}`, { headers }));
  const resolution = await timed(REQUESTS, () => fetch(`${baseUrl}/v1/prompts/${randomKey()}`, { headers }));
  say(`  GET /v1/prompts/{key}: p50 ${resolution.p50_ms} ms, p99 ${resolution.p99_ms} ms`);

  const figures = {
    selection,
    overhead: { requests: REQUESTS, direct, reason: reasoned, added: overhead, target_p50_ms: TARGET_P50_OVERHEAD_MS },
    prompt_resolution: { prompts: PROMPTS, versions_each: VERSIONS, ...resolution },
    database: database.kind,
  };
  const directory = path.join(process.cwd(), 'bench-results');
  mkdirSync(directory, { recursive: true });
  writeFileSync(path.join(directory, 'reasoning.json'), `${JSON.stringify(figures, null, 2)}\n`);
}

runSuite(main);

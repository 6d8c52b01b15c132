/**
 * `npm run bench -- observability`: what metrics and tracing cost per request. The same cheap authenticated
 * GET (GET /v1/orch/reviewers: token check, rate-limit count, one indexed read) is served by four API processes
 * alike but for observability: none, metrics (METRICS_PORT), tracing (an exporter that drops the spans, batched
 * as OTLP is), both. Each is loaded in turn, round after round so that drift on the machine spreads over all of
 * them, and reported as requests/s and API CPU per request, each beside its ratio to the one without.
 */
import path from 'node:path';
import { loadConfig, tokenIssuer } from '../../app/config';
import { migrateToLatest } from '../../db/migrate';
import { DEFAULT_ORGANIZATION_ID } from '../../domain/common/organizations';
import { createKeyRing, ensureSigningKey } from '../../services/identity/issuance/key-ring';
import { registerTokenSubject } from '../../services/identity/issuance/subjects';
import { issueAccessToken } from '../../services/identity/issuance/access-tokens';
import { SCOPES } from '../../services/identity/scopes';
import { seedDevReviewers } from '../dev-seed';
import { createBenchDatabase } from './database';
import { runClosedLoop, summarize, type LoadRun } from './load';
import { VARIANTS, type Variant } from './observability-api';
import { cpuSeconds, freePort, spawnService, type Service } from './processes';
import { fixed, writeResults } from './report';
import { onTearDown, runSuite, say, waitUntil } from './stack';

const ROUNDS = 3;
const REQUESTS_PER_ROUND = 4000;
const WARM_UP_REQUESTS = 1000;
const CONCURRENCY = 16;
/** The issuer the token is signed for and every API process accepts, whatever port it listens on. */
const ISSUER = 'http://bench.handoff.local';

interface Measured {
  runs: LoadRun[];
  cpuSeconds: number;
}

async function startVariant(variant: Variant, databaseUrl: string): Promise<{ service: Service; baseUrl: string }> {
  const port = await freePort();
  const env = {
    ...process.env,
    OBSERVABILITY_VARIANT: variant,
    DATABASE_URL: databaseUrl,
    PORT: String(port),
    AUTH_ISSUER: ISSUER,
    LOG_LEVEL: 'error',
    RATE_LIMIT_DEFAULT: '1000000000',
    MALLOC_ARENA_MAX: '2',
  };
  const service = spawnService(`api-${variant}`, path.join(__dirname, 'observability-api.ts'), env);
  onTearDown(() => service.stop());
  const baseUrl = `http://127.0.0.1:${port}`;
  await waitUntil(
    `the ${variant} API`,
    async () => (await fetch(`${baseUrl}/healthz`).catch(() => undefined))?.ok === true,
  );
  return { service, baseUrl };
}

async function load(baseUrl: string, token: string, count: number): Promise<LoadRun> {
  const headers = { authorization: `Bearer ${token}` };
  return runClosedLoop({
    count,
    concurrency: CONCURRENCY,
    send: async () => {
      const response = await fetch(`${baseUrl}/v1/orch/reviewers?limit=10`, { headers });
      await response.arrayBuffer();
      return response.status === 200 ? { ok: true } : { ok: false, error: `answered ${response.status}` };
    },
  });
}

async function main(): Promise<void> {
  const database = await createBenchDatabase();
  onTearDown(() => database.destroy());
  await migrateToLatest(database.db);
  await ensureSigningKey(database.db);
  await seedDevReviewers(database.db);
  const config = loadConfig({ DATABASE_URL: database.url, AUTH_ISSUER: ISSUER });
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

  const apis = new Map<Variant, { service: Service; baseUrl: string }>();
  for (const variant of VARIANTS) apis.set(variant, await startVariant(variant, database.url));
  for (const [, api] of apis) await load(api.baseUrl, token, WARM_UP_REQUESTS);

  const measured = new Map<Variant, Measured>(VARIANTS.map((variant) => [variant, { runs: [], cpuSeconds: 0 }]));
  for (let round = 1; round <= ROUNDS; round += 1) {
    say(
      `round ${round}/${ROUNDS}: ${REQUESTS_PER_ROUND} GETs at concurrency ${CONCURRENCY} to each of ${VARIANTS.join(', ')}…`,
    );
    for (const variant of VARIANTS) {
      const { service, baseUrl } = apis.get(variant)!;
      const before = cpuSeconds(service.pid) ?? Number.NaN;
      const run = await load(baseUrl, token, REQUESTS_PER_ROUND);
      const figures = measured.get(variant)!;
      figures.runs.push(run);
      figures.cpuSeconds += (cpuSeconds(service.pid) ?? Number.NaN) - before;
    }
  }

  const results = VARIANTS.map((variant) => {
    const { runs, cpuSeconds: cpu } = measured.get(variant)!;
    const figures = summarize(runs);
    return { variant, ...figures, apiCpuMsPerRequest: (cpu * 1000) / figures.requests };
  });
  const off = results.find((result) => result.variant === 'off')!;
  const withRatios = results.map((result) => ({
    ...result,
    throughputRatio: result.throughputPerSecond / off.throughputPerSecond,
    cpuRatio: result.apiCpuMsPerRequest / off.apiCpuMsPerRequest,
  }));

  const rows = [
    ['', 'req/s', 'vs off', 'API CPU ms/req', 'vs off', 'p50 ms', 'p99 ms', 'errors'],
    ...withRatios.map((r) => [
      r.variant,
      fixed(r.throughputPerSecond, 0),
      fixed(r.throughputRatio, 3),
      fixed(r.apiCpuMsPerRequest, 3),
      fixed(r.cpuRatio, 3),
      fixed(r.p50Ms, 2),
      fixed(r.p99Ms, 2),
      String(r.errors),
    ]),
  ];
  const widths = rows[0]!.map((_, column) => Math.max(...rows.map((row) => row[column]!.length)));
  say('');
  for (const row of rows)
    say(
      row
        .map((cell, column) => (column === 0 ? cell.padEnd(widths[column]!) : cell.padStart(widths[column]!)))
        .join('   '),
    );
  say('');
  say(
    `${ROUNDS} rounds of ${REQUESTS_PER_ROUND} requests per variant; ${database.kind === 'postgres' ? 'local Postgres server' : 'embedded Postgres in this process'}.`,
  );
  const failed = withRatios.find((r) => r.errors > 0);
  if (failed)
    throw new Error(
      `${failed.errors} requests to ${failed.variant} failed (${failed.errorSamples.join('; ')}); the figures do not count`,
    );
  writeResults(
    {
      generatedAt: new Date().toISOString(),
      settings: {
        rounds: ROUNDS,
        requestsPerRound: REQUESTS_PER_ROUND,
        concurrency: CONCURRENCY,
        route: 'GET /v1/orch/reviewers?limit=10',
      },
      database: database.kind,
      variants: withRatios.map(({ errorSamples: _samples, ...rest }) => rest),
    },
    path.join(process.cwd(), 'bench-results', 'observability.json'),
  );
}

runSuite(main);

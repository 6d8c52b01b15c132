/**
 * `npm run bench -- marketplace`: the connector catalog and OAuth installs, in process against the
 * benchmark's own Postgres.
 *
 * Search: 10,000 connectors registered, then full-text searches (a word, two words, a word with a provider
 * filter, a capability filter) through searchCatalog, the service GET /v1/marketplace/connectors calls, with
 * their statistics; p50/p99 and this process's CPU per search. Install → active: for each install, the
 * attempt and its state stored (as the install's request does), the state claimed (as the callback does),
 * the code exchanged at a local token endpoint over HTTP and the sealed tokens and record written (as the
 * install workflow's activity does), at concurrency 8; installs per second and CPU per install. The
 * Temporal hop between the callback and the activity is not in it (see the routing suite for that cost).
 * Writes bench-results/marketplace.json.
 */
import { createServer } from 'node:http';
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { loadConfig } from '../../app/config';
import { connectorSettings } from '../../app/deps';
import { migrateToLatest } from '../../db/migrate';
import { upsertConnector } from '../../db/connectors';
import { beginInstallAttempt, claimOAuthState, findInstallation, insertOAuthState } from '../../db/installations';
import { completeAuthorization } from '../../services/connectors/authorization';
import { searchCatalog } from '../../services/connectors/catalog';
import { createOAuthClient } from '../../services/connectors/oauth-client';
import { authorizationSecrets, stateHash } from '../../services/connectors/pkce';
import { createSecretBox } from '../../lib/secret-box';
import { createBenchDatabase } from './database';
import { percentile } from './load';
import { fixed, writeResults } from './report';
import { onTearDown, runSuite, say } from './stack';

const CONNECTORS = Number(process.env.HANDOFF_BENCH_CONNECTORS ?? 10_000);
const SEARCHES = Number(process.env.HANDOFF_BENCH_SEARCHES ?? 1_000);
const INSTALLS = Number(process.env.HANDOFF_BENCH_INSTALLS ?? 400);
const CONCURRENCY = 8;
const RESULTS_FILE = path.resolve(__dirname, '..', '..', 'bench-results', 'marketplace.json');
const WORDS = ['messages', 'files', 'invoices', 'tickets', 'calendar', 'contacts', 'records', 'alerts', 'payments'];
const PROVIDERS = ['Slack', 'Google', 'Salesforce', 'Stripe', 'Zendesk', 'Atlassian', 'Microsoft', 'HubSpot'];

/** A minimal token endpoint: every authorization code is exchanged for a fresh token pair. */
async function startTokenEndpoint(): Promise<{ url: string; close: () => Promise<void> }> {
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.setHeader('content-type', 'application/json');
      res.end(
        JSON.stringify({
          access_token: randomUUID(),
          refresh_token: randomUUID(),
          token_type: 'Bearer',
          expires_in: 3600,
        }),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return { url: `http://127.0.0.1:${port}/token`, close: () => new Promise((done) => server.close(() => done())) };
}

function connector(index: number, tokenUrl: string) {
  const word = WORDS[index % WORDS.length]!;
  const provider = PROVIDERS[index % PROVIDERS.length]!;
  return {
    connector_id: `bench-${index}`,
    name: `${provider} ${word} ${index}`,
    provider,
    description: `Sync ${word} and ${WORDS[(index + 3) % WORDS.length]!} between ${provider} and your agents`,
    long_description: null,
    version: '1.0.0',
    publisher_id: `pub_${index % 50}`,
    publisher_name: `Publisher ${index % 50}`,
    publisher_verified: index % 3 === 0,
    certified: index % 5 === 0,
    pricing_model: (['free', 'paid', 'freemium'] as const)[index % 3]!,
    capabilities: [`${word}:read`],
    oauth: { required: true, scopes: [`${word}:read`] },
    oauth_client: {
      authorization_endpoint: 'http://127.0.0.1/authorize',
      token_endpoint: tokenUrl,
      client_id: 'bench',
    },
    deployment_modes: ['cloud' as const],
    configuration_schema: { type: 'object' },
  };
}

const cpuMs = () => {
  const used = process.cpuUsage();
  return (used.user + used.system) / 1000;
};

async function inParallel(count: number, work: (index: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < count) await work(next++);
    }),
  );
}

runSuite(async () => {
  const database = await createBenchDatabase();
  onTearDown(() => database.destroy());
  const { db } = database;
  await migrateToLatest(db);
  const endpoint = await startTokenEndpoint();
  onTearDown(endpoint.close);
  const config = loadConfig({
    OUTBOUND_PRIVATE_ALLOWLIST: '127.0.0.1',
    SECRETS_ENCRYPTION_KEY: Buffer.alloc(32, 7).toString('base64'),
  });
  const settings = connectorSettings(config);
  const deps = { db, settings, oauth: createOAuthClient(settings) };

  say(`registering ${CONNECTORS} connectors…`);
  await inParallel(CONNECTORS, async (index) => {
    await upsertConnector(db, connector(index, endpoint.url));
  });
  await db.raw('analyze marketplace_connectors');

  const queries = [
    (i: number) => ({ query: WORDS[i % WORDS.length] }),
    (i: number) => ({ query: `${WORDS[i % WORDS.length]!} ${WORDS[(i + 3) % WORDS.length]!}` }),
    (i: number) => ({ query: WORDS[i % WORDS.length], provider: PROVIDERS[i % PROVIDERS.length] }),
    (i: number) => ({ capability: `${WORDS[i % WORDS.length]!}:read`, certified: true }),
  ];
  for (let i = 0; i < 50; i += 1) await searchCatalog(deps, queries[i % 4]!(i), { limit: 20 });
  const latencies: number[] = [];
  const searchCpu = cpuMs();
  for (let i = 0; i < SEARCHES; i += 1) {
    const started = performance.now();
    await searchCatalog(deps, queries[i % 4]!(i), { limit: 20 });
    latencies.push(performance.now() - started);
  }
  const searchCpuPer = (cpuMs() - searchCpu) / SEARCHES;
  latencies.sort((a, b) => a - b);

  const box = createSecretBox(settings.secretKeys);
  const installCpu = cpuMs();
  const installStarted = performance.now();
  await inParallel(INSTALLS, async (index) => {
    const organizationId = `org_default`;
    const secrets = authorizationSecrets();
    const installationId = `ins_bench_${index}`;
    const expiresAt = new Date(Date.now() + 30 * 60_000);
    await db.transaction(async (trx) => {
      const begun = await beginInstallAttempt(trx, {
        installation_id: installationId,
        organization_id: organizationId,
        connector_id: `bench-${index}`,
        deployment_mode: 'cloud',
        config: {},
        granted_permissions: [],
        installed_by: 'bench',
        status: 'pending_oauth',
        oauth_expires_at: expiresAt,
      });
      await insertOAuthState(trx, {
        state_hash: stateHash(secrets.state),
        installation_id: installationId,
        attempt: begun.attempt,
        code_verifier_sealed: box.seal(secrets.verifier, installationId),
        redirect_uri: 'http://127.0.0.1/v1/oauth/callback',
        expires_at: expiresAt,
      });
    });
    const claim = await claimOAuthState(db, stateHash(secrets.state));
    if (claim.kind !== 'claimed') throw new Error(`state of ${installationId}: ${claim.kind}`);
    const outcome = await completeAuthorization(
      deps,
      { installation_id: installationId, attempt: claim.attempt },
      { kind: 'code', code: randomUUID() },
    );
    if (outcome !== 'active') throw new Error(`${installationId} ended ${outcome}`);
  });
  const installSeconds = (performance.now() - installStarted) / 1000;
  const installCpuPer = (cpuMs() - installCpu) / INSTALLS;
  const sample = await findInstallation(db, 'org_default', 'ins_bench_0');
  if (sample?.status !== 'active') throw new Error('the installs did not end active');

  const results = {
    database: database.kind,
    connectors: CONNECTORS,
    search: {
      searches: SEARCHES,
      p50_ms: percentile(latencies, 50),
      p99_ms: percentile(latencies, 99),
      cpu_ms_per_search: searchCpuPer,
    },
    install: {
      installs: INSTALLS,
      concurrency: CONCURRENCY,
      per_second: INSTALLS / installSeconds,
      cpu_ms_per_install: installCpuPer,
    },
  };
  say(`\nconnector search over ${CONNECTORS} connectors (${database.kind} Postgres), ${SEARCHES} searches:`);
  say(
    `  p50 ${fixed(results.search.p50_ms, 2)} ms, p99 ${fixed(results.search.p99_ms, 2)} ms, CPU ${fixed(searchCpuPer, 2)} ms/search (this process)`,
  );
  say(`install → active (state stored, claimed, code exchanged over HTTP, tokens sealed), c=${CONCURRENCY}:`);
  say(`  ${fixed(results.install.per_second)} installs/s, CPU ${fixed(installCpuPer, 2)} ms/install (this process)`);
  writeResults(results, RESULTS_FILE);
});

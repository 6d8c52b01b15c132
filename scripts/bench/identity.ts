/**
 * `npm run bench -- identity`: delegation tokens, in process against the benchmark's own Postgres.
 *
 * Verifications per second of a delegation token (signature, claims and the revocation check, as the API's
 * authentication does) with no revocations on record and with 100,000, and their ratio; and the latency of
 * the session → delegation token exchange (verify the session, read the Passport, write the delegation and
 * its token, sign), p50 and p99. Then runs identity-passports-suite.ts (Passport creation rate against a
 * running API) in a process of its own. Writes bench-results/identity.json.
 */
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { migrateToLatest } from '../../db/migrate';
import { createLogger } from '../../lib/logger';
import { createKeyRing, ensureSigningKey } from '../../services/identity/issuance/key-ring';
import { authenticateDelegationToken } from '../../services/identity/delegations/authenticate';
import { exchangeForDelegationToken } from '../../services/identity/delegations/exchange';
import type { DelegationDeps } from '../../services/identity/delegations/context';
import { createRevocationRegistry } from '../../services/identity/delegations/revocations';
import { issueSessionToken } from '../../services/identity/issuance/session-tokens';
import { createBenchDatabase } from './database';
import { percentile } from './load';
import { fixed, writeResults } from './report';
import { onTearDown, runSuite, say } from './stack';

const REVOCATIONS = Number(process.env.HANDOFF_BENCH_REVOCATIONS ?? 100_000);
const VERIFY_SECONDS = Number(process.env.HANDOFF_BENCH_VERIFY_SECONDS ?? 2);
/** Rounds with and without revocations alternate, and each side's best round counts: the machine's noise hits both alike. */
const ROUNDS = 4;
const EXCHANGES = Number(process.env.HANDOFF_BENCH_EXCHANGES ?? 1_000);
const RESULTS_FILE = path.resolve(__dirname, '..', '..', 'bench-results', 'identity.json');
const PASSPORTS_SUITE = path.join(__dirname, 'identity-passports-suite.ts');
const SETTINGS = { issuer: 'http://127.0.0.1:3000', audience: 'handoff-api' };

async function verificationsPerSecond(deps: DelegationDeps, token: string): Promise<number> {
  // Warm: the key ring's cache and the revocation set are loaded before the clock starts.
  for (let i = 0; i < 200; i += 1) await authenticateDelegationToken(deps, token);
  const deadline = performance.now() + VERIFY_SECONDS * 1000;
  const started = performance.now();
  let count = 0;
  while (performance.now() < deadline) {
    const result = await authenticateDelegationToken(deps, token);
    if (!result.ok) throw new Error(`verification failed: ${result.reason}`);
    count += 1;
  }
  return count / ((performance.now() - started) / 1000);
}

function runPassportsSuite(): Promise<number> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', PASSPORTS_SUITE], { stdio: 'inherit' });
    child.once('exit', (code) => resolve(code ?? 1));
  });
}

runSuite(async () => {
  const database = await createBenchDatabase();
  onTearDown(() => database.destroy());
  const { db } = database;
  await migrateToLatest(db);
  await ensureSigningKey(db);
  const logger = createLogger({ level: 'error', silent: true });
  const keyRing = createKeyRing(db);
  say(`Database: ${database.kind}`);

  const now = new Date();
  const passport_id = `pp_bench_${randomUUID()}`;
  const did = `did:web:bench.example:${passport_id}`;
  await db('passports').insert({
    passport_id,
    did,
    type: 'individual',
    name: 'Bench',
    organization_id: 'org_default',
    metadata: '{}',
    capabilities: [],
    status: 'active',
    created_at: now,
    updated_at: now,
  });
  await db('passport_keys').insert({
    kid: `kid_${passport_id}`,
    passport_id,
    public_jwk: '{}',
    source: 'device',
    device_id: 'bench',
    status: 'active',
    created_at: now,
  });
  const session = await issueSessionToken(keyRing, SETTINGS, {
    passport_id,
    did,
    organization_id: 'org_default',
    credential: { type: 'device_key', id: `kid_${passport_id}` },
    ttlSeconds: 3600,
  });

  // As a production instance runs: LISTEN on a Postgres server, polling only on the embedded one.
  const listenUrl = database.kind === 'postgres' ? database.url : undefined;
  const empty = createRevocationRegistry({ db, logger, listenUrl });
  onTearDown(() => empty.close());
  const emptyDeps: DelegationDeps = { db, keyRing, settings: SETTINGS, revocations: empty };

  // Exchange latency, one at a time: what a person signing in waits for.
  const latencies: number[] = [];
  let token = '';
  for (let i = 0; i < EXCHANGES; i += 1) {
    const started = performance.now();
    const outcome = await exchangeForDelegationToken(emptyDeps, {
      subject_token: session.token,
      capabilities: [],
      duration_seconds: 3600,
      risk_level: 'standard',
    });
    latencies.push(performance.now() - started);
    if (!outcome.ok) throw new Error(`exchange refused: ${outcome.code}`);
    token = outcome.issued.token;
  }
  latencies.sort((a, b) => a - b);
  const exchange = { count: EXCHANGES, p50_ms: percentile(latencies, 50), p99_ms: percentile(latencies, 99) };
  say(`Exchange (${EXCHANGES}, sequential): p50 ${fixed(exchange.p50_ms, 2)} ms, p99 ${fixed(exchange.p99_ms, 2)} ms`);

  // The revoked tokens belong to one revoked-token family each of the earlier exchanges; the bench token stays valid.
  const delegationIds = (await db('delegations').pluck('delegation_id')) as string[];
  const rows = Array.from({ length: REVOCATIONS }, (_, index) => ({
    id: `rev_bench_${index}`,
    organization_id: 'org_default',
    delegation_id: delegationIds[index % delegationIds.length]!,
    token_id: `dtk_bench_${index}`,
    revoked_by: did,
    revoked_at: now,
    reason: null,
    metadata: '{}',
    expires_at: new Date(now.getTime() + 3600_000),
  }));
  const insertStarted = performance.now();
  await db.batchInsert('delegation_revocations', rows, 5000);
  say(`Recorded ${REVOCATIONS} revocations in ${fixed((performance.now() - insertStarted) / 1000, 1)} s`);

  const loaded = createRevocationRegistry({ db, logger, listenUrl });
  onTearDown(() => loaded.close());
  const loadStarted = performance.now();
  await loaded.check('dtk_none', ['dlg_none']);
  const loadMs = performance.now() - loadStarted;
  if (loaded.status().tokens < REVOCATIONS)
    throw new Error(`the registry holds ${loaded.status().tokens} revocations, not ${REVOCATIONS}`);
  say(`Registry loaded ${loaded.status().tokens} revocations in ${fixed(loadMs, 0)} ms`);
  let baseline = 0;
  let withRevocations = 0;
  for (let round = 0; round < ROUNDS; round += 1) {
    baseline = Math.max(baseline, await verificationsPerSecond(emptyDeps, token));
    withRevocations = Math.max(
      withRevocations,
      await verificationsPerSecond({ ...emptyDeps, revocations: loaded }, token),
    );
  }
  const ratio = withRevocations / baseline;
  say(
    `Verifications per second (best of ${ROUNDS} alternating rounds of ${VERIFY_SECONDS} s): no revocations ${fixed(baseline, 0)}, ${REVOCATIONS} revocations ${fixed(withRevocations, 0)} (${fixed(ratio, 2)}×)`,
  );

  writeResults(
    {
      suite: 'identity',
      database: database.kind,
      exchange,
      verification: {
        per_second_without_revocations: baseline,
        per_second_with_revocations: withRevocations,
        revocations: REVOCATIONS,
        ratio,
        registry_load_ms: loadMs,
      },
    },
    RESULTS_FILE,
  );

  say('\nPassports: scripts/bench/identity-passports-suite.ts');
  const code = await runPassportsSuite();
  if (code !== 0) throw new Error(`identity-passports-suite.ts exited with ${code}`);
});

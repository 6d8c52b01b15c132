/**
 * `npm run bench -- ledger`: what the provenance ledger costs, on a fresh Postgres database.
 *
 * - appends per second through appendProvenance, one record per call (sequential, and from concurrent
 *   callers as workers append), and through appendProvenanceBatch (records per second, many per call);
 * - inclusion-proof time (p50, p99) at 100,000 and at 1,000,000 leaves: the log is grown with batched
 *   appends and sealed into blocks by the sealer's own code, then proofs of random leaves are built
 *   (one node query and the hashing) and checked against the signed checkpoint. Target: p99 under
 *   5 ms, growing as log n.
 *
 * Writes bench-results/ledger.json. BENCH_LEDGER_LEAVES=100000,1000000 picks the proof sizes.
 */
import { cpus } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { appendProvenance, appendProvenanceBatch } from '../../db/ledger';
import { latestCheckpoint, ledgerSealingLag } from '../../db/ledger-blocks';
import { migrateToLatest } from '../../db/migrate';
import { inclusionRanges, nodesFor, verifyInclusion } from '../../domain/ledger/merkle';
import type { AppendProvenanceInput } from '../../domain/provenance/records';
import { ensureLedgerKey, type LedgerKey } from '../../services/ledger/keys';
import { inclusionProof, recordBundle } from '../../services/ledger/proofs';
import { leafHashOfBody, rfc6962 } from '../../services/ledger/rfc6962';
import { sealOpenBlock } from '../../services/ledger/seal';
import { openCheckpoint } from '../../services/ledger/verify';
import { createBenchDatabase, type BenchDatabase } from './database';
import { percentile, runClosedLoop, summarize } from './load';
import { writeResults } from './report';

const SINGLE_APPENDS = 3000;
const CONCURRENT_CALLERS = 16;
const BATCH_SIZE = 500;
const BATCHED_RECORDS = 50_000;
const BUILD_BATCH = 2000;
const BLOCK_LEAVES = 10_000;
const PROOFS_PER_SIZE = 2000;
const PROOF_TARGET_P99_MS = 5;
const PROOF_SIZES = (process.env.BENCH_LEDGER_LEAVES ?? '100000,1000000').split(',').map(Number);
const RESULTS_FILE = path.resolve(__dirname, '..', '..', 'bench-results', 'ledger.json');

const say = (line: string) => process.stdout.write(`${line}\n`);
const fixed = (value: number, digits = 1) => value.toFixed(digits);

let sequence = 0;
/** A record shaped like a routing decision (about 900 bytes of canonical JSON). */
function decisionRecord(): AppendProvenanceInput {
  sequence += 1;
  return {
    entry: {
      subject_id: `rt_bench-${sequence}`,
      step_id: 'routing_decision',
      timestamp: new Date().toISOString(),
      actor: { type: 'orch_core', did: 'did:web:handoff.local:orch-core' },
      action: 'routing_decided',
      input_data: {
        task_type: 'bench_review',
        ai_agent_id: 'urn:bench:agent:1',
        ai_confidence: 0.5,
        context: { amount: 1200 },
        required_capabilities: [{ capability_id: 'general_review', min_weight: 0.5 }],
      },
      output_data: {
        decision: 'escalate_to_human',
        reason: 'ai_confidence_below_threshold',
        escalation_level: 'medium',
        risk: { level: 'medium', factors: ['amount'] },
        safety_analysis: {
          risk_level: 'medium',
          safety_boundaries_checked: 4,
          ethical_constraints_checked: 3,
          all_constraints_met: false,
        },
        assigned_to: {
          type: 'human',
          did: 'did:web:handoff.local:reviewers:ada',
          capabilities_matched: [{ capability_id: 'general_review', weight: 0.8 }],
        },
      },
      reasoning: 'Decided escalate_to_human because ai_confidence_below_threshold',
      rules_evaluated: [
        { rule_id: 'life_safety', triggered: false, reason: 'no_life_safety_flag' },
        { rule_id: 'fourth_law', triggered: true, reason: 'ai_confidence_below_threshold' },
      ],
    },
    events: [{ event: 'routing.decided', data: { routing_id: `rt_bench-${sequence}`, decision: 'escalate_to_human' } }],
  };
}

interface AppendFigures {
  records: number;
  seconds: number;
  records_per_second: number;
  p50_ms: number;
  p99_ms: number;
}

async function measureSingle(database: BenchDatabase, concurrency: number): Promise<AppendFigures> {
  const run = await runClosedLoop({
    count: SINGLE_APPENDS,
    concurrency,
    send: async () => {
      await appendProvenance(database.db, decisionRecord());
      return { ok: true };
    },
  });
  const figures = summarize([run]);
  return {
    records: figures.requests,
    seconds: figures.wallSeconds,
    records_per_second: figures.throughputPerSecond,
    p50_ms: figures.p50Ms,
    p99_ms: figures.p99Ms,
  };
}

async function measureBatched(database: BenchDatabase): Promise<AppendFigures & { batch_size: number }> {
  const calls = BATCHED_RECORDS / BATCH_SIZE;
  const run = await runClosedLoop({
    count: calls,
    concurrency: 4,
    send: async () => {
      await appendProvenanceBatch(database.db, Array.from({ length: BATCH_SIZE }, decisionRecord));
      return { ok: true };
    },
  });
  const figures = summarize([run]);
  return {
    batch_size: BATCH_SIZE,
    records: BATCHED_RECORDS,
    seconds: figures.wallSeconds,
    records_per_second: BATCHED_RECORDS / figures.wallSeconds,
    p50_ms: figures.p50Ms,
    p99_ms: figures.p99Ms,
  };
}

/** Appends and seals until the log holds `leaves` leaves; returns the sealing rate seen on the way. */
async function growTo(
  database: BenchDatabase,
  key: LedgerKey,
  leaves: number,
): Promise<{ appended: number; sealSeconds: number; appendSeconds: number }> {
  let size = (await ledgerSealingLag(database.db)).tree_size;
  let sealSeconds = 0;
  let appendSeconds = 0;
  const startSize = size;
  while (size < leaves) {
    const block = Math.min(BLOCK_LEAVES, leaves - size);
    const appendStart = performance.now();
    for (let done = 0; done < block; done += BUILD_BATCH) {
      await appendProvenanceBatch(
        database.db,
        Array.from({ length: Math.min(BUILD_BATCH, block - done) }, decisionRecord),
      );
    }
    appendSeconds += (performance.now() - appendStart) / 1000;
    const sealStart = performance.now();
    const [sealed] = await sealOpenBlock(database.db, key, { lockTimeoutMs: 5000 });
    sealSeconds += (performance.now() - sealStart) / 1000;
    size = sealed!.tree_size;
    if (size % 100_000 < BLOCK_LEAVES) say(`  … ${size.toLocaleString('en')} leaves`);
  }
  return { appended: size - startSize, sealSeconds, appendSeconds };
}

interface ProofFigures {
  tree_size: number;
  proofs: number;
  proof_hashes: number;
  nodes_read: number;
  p50_ms: number;
  p99_ms: number;
  max_ms: number;
  bundle_p50_ms: number;
  bundle_p99_ms: number;
  target_p99_ms: number;
  pass: boolean;
}

async function measureProofs(database: BenchDatabase, key: LedgerKey): Promise<ProofFigures> {
  const lag = await ledgerSealingLag(database.db);
  const treeSize = lag.tree_size;
  const latest = await latestCheckpoint(database.db);
  const checkpoint = openCheckpoint(latest!.checkpoint, key.signer);
  const root = Buffer.from(checkpoint.rootHash, 'base64');
  const leafIndexes = Array.from({ length: PROOFS_PER_SIZE }, () => Math.floor(Math.random() * treeSize));
  const rows: Array<{ leaf_index: number; transaction_id: string; body: string }> = await database
    .db('ledger_leaves as l')
    .join('ledger_entries as e', 'e.transaction_id', 'l.transaction_id')
    .whereIn('l.leaf_index', leafIndexes)
    .select('l.leaf_index', 'l.transaction_id', 'e.body');
  const byIndex = new Map(rows.map((row) => [row.leaf_index, row]));

  // Warm-up: the first queries pay for plans and cold pages.
  for (const index of leafIndexes.slice(0, 200)) await inclusionProof(database.db, index, treeSize);
  const times: number[] = [];
  for (const index of leafIndexes) {
    const started = performance.now();
    const proof = await inclusionProof(database.db, index, treeSize);
    times.push(performance.now() - started);
    const row = byIndex.get(index)!;
    if (!verifyInclusion(rfc6962, index, treeSize, leafHashOfBody(row.body), proof, root))
      throw new Error(`the proof of leaf ${index} does not verify`);
  }
  const bundleTimes: number[] = [];
  for (const index of leafIndexes.slice(0, 500)) {
    const started = performance.now();
    const outcome = await recordBundle(database.db, byIndex.get(index)!.transaction_id);
    bundleTimes.push(performance.now() - started);
    if (!outcome.ok) throw new Error(outcome.detail);
  }
  times.sort((a, b) => a - b);
  bundleTimes.sort((a, b) => a - b);
  const sample = leafIndexes[0]!;
  const p99 = percentile(times, 99);
  return {
    tree_size: treeSize,
    proofs: times.length,
    proof_hashes: inclusionRanges(sample, treeSize).length,
    nodes_read: nodesFor(inclusionRanges(sample, treeSize)).length,
    p50_ms: percentile(times, 50),
    p99_ms: p99,
    max_ms: times[times.length - 1]!,
    bundle_p50_ms: percentile(bundleTimes, 50),
    bundle_p99_ms: percentile(bundleTimes, 99),
    target_p99_ms: PROOF_TARGET_P99_MS,
    pass: p99 < PROOF_TARGET_P99_MS,
  };
}

async function main(): Promise<void> {
  const database = await createBenchDatabase();
  try {
    say(
      `Preparing ${database.kind === 'postgres' ? 'a fresh database on the local Postgres' : 'an embedded Postgres'}…`,
    );
    await migrateToLatest(database.db);
    const key = await ensureLedgerKey(database.db, 'bench.handoff.local/ledger');

    say(
      `Appends, one record per call: ${SINGLE_APPENDS} sequential, then ${SINGLE_APPENDS} from ${CONCURRENT_CALLERS} concurrent callers…`,
    );
    const sequential = await measureSingle(database, 1);
    const concurrent = await measureSingle(database, CONCURRENT_CALLERS);
    say(`Appends in batches of ${BATCH_SIZE}: ${BATCHED_RECORDS} records from 4 concurrent callers…`);
    const batched = await measureBatched(database);
    await sealOpenBlock(database.db, key, { lockTimeoutMs: 5000 });

    const proofs: ProofFigures[] = [];
    const growth: Array<{
      to: number;
      appended: number;
      append_records_per_second: number;
      sealed_leaves_per_second: number;
    }> = [];
    for (const size of PROOF_SIZES) {
      say(
        `Growing the log to ${size.toLocaleString('en')} leaves (batches of ${BUILD_BATCH}, blocks of ${BLOCK_LEAVES} sealed as the sealer does)…`,
      );
      const grown = await growTo(database, key, size);
      growth.push({
        to: size,
        appended: grown.appended,
        append_records_per_second: grown.appended / Math.max(grown.appendSeconds, 1e-9),
        sealed_leaves_per_second: grown.appended / Math.max(grown.sealSeconds, 1e-9),
      });
      say(`Inclusion proofs of ${PROOFS_PER_SIZE} random leaves at ${size.toLocaleString('en')} leaves…`);
      proofs.push(await measureProofs(database, key));
    }

    const rows: string[][] = [
      ['', 'records', 'records/s', 'p50 ms', 'p99 ms'],
      [
        'append, 1 per call, sequential',
        String(sequential.records),
        fixed(sequential.records_per_second),
        fixed(sequential.p50_ms, 2),
        fixed(sequential.p99_ms, 2),
      ],
      [
        `append, 1 per call, ${CONCURRENT_CALLERS} callers`,
        String(concurrent.records),
        fixed(concurrent.records_per_second),
        fixed(concurrent.p50_ms, 2),
        fixed(concurrent.p99_ms, 2),
      ],
      [
        `append, ${BATCH_SIZE} per call, 4 callers`,
        String(batched.records),
        fixed(batched.records_per_second),
        fixed(batched.p50_ms, 2),
        fixed(batched.p99_ms, 2),
      ],
    ];
    const proofRows: string[][] = [
      [
        'tree size',
        'proof hashes',
        'nodes read',
        'p50 ms',
        'p99 ms',
        'max ms',
        'bundle p99 ms',
        'target p99',
        'result',
      ],
      ...proofs.map((p) => [
        p.tree_size.toLocaleString('en'),
        String(p.proof_hashes),
        String(p.nodes_read),
        fixed(p.p50_ms, 2),
        fixed(p.p99_ms, 2),
        fixed(p.max_ms, 2),
        fixed(p.bundle_p99_ms, 2),
        `< ${PROOF_TARGET_P99_MS}`,
        p.pass ? 'PASS' : 'MISS',
      ]),
    ];
    for (const table of [rows, proofRows]) {
      const widths = table[0]!.map((_, column) => Math.max(...table.map((row) => row[column]!.length)));
      say('');
      for (const row of table)
        say(
          row
            .map((cell, column) => (column === 0 ? cell.padEnd(widths[column]!) : cell.padStart(widths[column]!)))
            .join('   '),
        );
    }
    say('');
    for (const step of growth.filter((grown) => grown.appended > 0))
      say(
        `Growing to ${step.to.toLocaleString('en')}: ${fixed(step.append_records_per_second, 0)} records/s appended in batches of ${BUILD_BATCH}, ${fixed(step.sealed_leaves_per_second, 0)} leaves/s sealed.`,
      );
    say(
      `${cpus().length} CPUs, Node ${process.version}, ${database.kind === 'postgres' ? 'local Postgres server' : 'embedded Postgres'}; proofs read one query of O(log n) stored subtrees and are verified against the signed checkpoint.`,
    );
    writeResults(
      {
        generatedAt: new Date().toISOString(),
        machine: { cpus: cpus().length, node: process.version, database: database.kind },
        appends: { sequential, concurrent: { ...concurrent, callers: CONCURRENT_CALLERS }, batched },
        growth,
        inclusion_proofs: proofs,
      },
      RESULTS_FILE,
    );
    if (proofs.some((p) => !p.pass)) process.exitCode = 1;
  } finally {
    await database.destroy();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`bench failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exitCode = 1;
});

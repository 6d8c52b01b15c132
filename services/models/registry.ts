import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import { appendProvenance } from '../../db/ledger';
import {
  findModel,
  findModelForUpdate,
  insertBenchmark,
  insertMissingModels,
  insertModel,
  isSeedVersionApplied,
  recordBenchmarkOnModel,
  recordSeedVersion,
  updateModel,
  type BenchmarkRow,
  type ModelChanges,
  type ModelRow,
  type NewModel,
} from '../../db/models';
import { modelAttemptStatistics } from '../../db/reasoning-calls';
import { benchmarkedCapabilities } from '../../domain/models/selection';
import { ORCH_CORE_DID } from '../../domain/provenance/records';

/** Administration of the registry leaves a provenance record: who changed which model, and how. */
async function recordRegistryChange(
  db: Knex,
  modelId: string,
  step: string,
  principalId: string,
  output: Record<string, unknown>,
  reasoning: string,
): Promise<void> {
  await appendProvenance(db, {
    entry: {
      subject_id: `model:${modelId}`,
      step_id: `${step}:${randomUUID()}`,
      timestamp: new Date().toISOString(),
      actor: { type: 'orch_core', did: ORCH_CORE_DID },
      action: `model_${step}`,
      input_data: { principal: principalId },
      output_data: output,
      reasoning,
    },
  });
}

export async function createModel(
  db: Knex,
  principalId: string,
  model: NewModel,
): Promise<{ ok: true; model: ModelRow } | { ok: false; code: 'model_exists' }> {
  const created = await db.transaction(async (trx) => {
    if (!(await insertModel(trx, model))) return false;
    await recordRegistryChange(
      trx,
      model.model_id,
      'registered',
      principalId,
      { ...model },
      `${principalId} registered the model ${model.model_id} of ${model.provider}`,
    );
    return true;
  });
  if (!created) return { ok: false, code: 'model_exists' };
  return { ok: true, model: (await findModel(db, model.model_id))! };
}

export async function changeModel(
  db: Knex,
  principalId: string,
  modelId: string,
  changes: ModelChanges,
): Promise<ModelRow | undefined> {
  return db.transaction(async (trx) => {
    const row = await updateModel(trx, modelId, changes);
    if (row)
      await recordRegistryChange(
        trx,
        modelId,
        'updated',
        principalId,
        { ...changes },
        `${principalId} changed ${Object.keys(changes).join(', ') || 'nothing'} of ${modelId}`,
      );
    return row;
  });
}

export interface BenchmarkSubmission {
  model_id: string;
  benchmark_type: string;
  benchmark_suite: string;
  score: number;
  run_at?: string | undefined;
  run_by?: string | undefined;
  test_cases_passed?: number | undefined;
  test_cases_total?: number | undefined;
  raw_results?: Record<string, unknown> | undefined;
}

export type BenchmarkOutcome =
  { ok: true; benchmark: BenchmarkRow; model: ModelRow } | { ok: false; code: 'model_not_found' };

/**
 * Records a benchmark and applies it to the model in one transaction: the count and last-benchmarked time,
 * and the capability it measures by the rule of domain/models/selection.ts (benchmarkedCapabilities).
 */
export async function submitBenchmark(
  db: Knex,
  principal: { id: string; organization_id: string },
  submission: BenchmarkSubmission,
): Promise<BenchmarkOutcome> {
  return db.transaction(async (trx): Promise<BenchmarkOutcome> => {
    const model = await findModelForUpdate(trx, submission.model_id);
    if (!model) return { ok: false, code: 'model_not_found' };
    const runAt = submission.run_at ? new Date(submission.run_at) : new Date();
    const benchmark = await insertBenchmark(trx, {
      benchmark_id: `bmk_${randomUUID()}`,
      model_id: model.model_id,
      organization_id: principal.organization_id,
      benchmark_type: submission.benchmark_type,
      benchmark_suite: submission.benchmark_suite,
      score: submission.score,
      run_at: runAt,
      run_by: submission.run_by ?? null,
      test_cases_passed: submission.test_cases_passed ?? null,
      test_cases_total: submission.test_cases_total ?? null,
      raw_results: submission.raw_results ?? null,
      submitted_by: principal.id,
    });
    const moved = benchmarkedCapabilities(model.capabilities, submission.benchmark_type, submission.score);
    const capabilities = moved ? { ...model.capabilities, [moved.capability]: moved.to } : model.capabilities;
    const updated = await recordBenchmarkOnModel(trx, model.model_id, capabilities, runAt);
    await recordRegistryChange(
      trx,
      model.model_id,
      'benchmarked',
      principal.id,
      {
        benchmark_id: benchmark.benchmark_id,
        benchmark_type: benchmark.benchmark_type,
        benchmark_suite: benchmark.benchmark_suite,
        score: benchmark.score,
        ...(moved ? { capability: moved } : {}),
      },
      moved
        ? `${benchmark.benchmark_suite} scored ${benchmark.score}/100: ${moved.capability} of ${model.model_id} moves from ${moved.from} to ${moved.to}`
        : `${benchmark.benchmark_suite} scored ${benchmark.score}/100; ${benchmark.benchmark_type} measures no capability score`,
    );
    return { ok: true, benchmark, model: updated };
  });
}

/** The seed file's shape: a version, and the models it brings. */
export interface ModelSeed {
  version: string;
  models: NewModel[];
}

/**
 * Loads a version of the seed once: inserts the models that are not in the registry yet and records the
 * version, in one transaction. A model already there (seeded before, or administered) is left as it is.
 */
export async function loadModelSeed(db: Knex, seed: ModelSeed): Promise<{ applied: boolean; inserted: number }> {
  if (await isSeedVersionApplied(db, seed.version)) return { applied: false, inserted: 0 };
  return db.transaction(async (trx) => {
    const inserted = await insertMissingModels(trx, seed.models);
    const applied = await recordSeedVersion(trx, seed.version, inserted);
    if (!applied)
      throw new Error(`The models seed ${seed.version} was being loaded by another process at the same time`);
    return { applied, inserted };
  });
}

export interface ModelStatistics {
  model_id: string;
  total_requests: number;
  success_rate: number;
  avg_latency_ms: number;
  avg_cost_usd: number;
  by_complexity: Record<string, { count: number; success_rate: number; avg_cost: number }>;
  /** The span the attempts were counted over. */
  window: { start: Date; end: Date };
}

export const MODEL_STATISTICS_WINDOW_DAYS = 30;

/** The organization's attempts at the model over the last 30 days (fallbacks and failures included). */
export async function modelStatistics(
  db: Knex,
  organizationId: string,
  modelId: string,
  now: Date,
): Promise<ModelStatistics | undefined> {
  if (!(await findModel(db, modelId))) return undefined;
  const start = new Date(now.getTime() - MODEL_STATISTICS_WINDOW_DAYS * 86_400_000);
  const rows = await modelAttemptStatistics(db, organizationId, modelId, start);
  const total = rows.reduce((sum, row) => sum + row.count, 0);
  const weighted = (pick: (row: (typeof rows)[number]) => number | null) =>
    total === 0 ? 0 : rows.reduce((sum, row) => sum + (pick(row) ?? 0) * row.count, 0) / total;
  return {
    model_id: modelId,
    total_requests: total,
    success_rate: total === 0 ? 0 : rows.reduce((sum, row) => sum + row.successes, 0) / total,
    avg_latency_ms: weighted((row) => row.avg_latency_ms),
    avg_cost_usd: weighted((row) => row.avg_cost_usd),
    by_complexity: Object.fromEntries(
      rows.map((row) => [
        row.complexity,
        { count: row.count, success_rate: row.successes / row.count, avg_cost: row.avg_cost_usd ?? 0 },
      ]),
    ),
    window: { start, end: now },
  };
}

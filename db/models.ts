import type { Knex } from 'knex';
import type { Capability, ModelStatus } from '../domain/models/selection';

export interface ModelRow {
  model_id: string;
  provider: string;
  display_name: string;
  description: string | null;
  capabilities: Record<Capability, number>;
  context_length: number;
  supports_streaming: boolean;
  supports_function_calling: boolean;
  supports_vision: boolean;
  performance: { avg_latency_ms: number; reliability: number; success_rate: number };
  cost: { input_cost_per_1k: number; output_cost_per_1k: number };
  status: ModelStatus;
  benchmark_count: number;
  last_benchmarked_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

export type NewModel = Omit<ModelRow, 'benchmark_count' | 'last_benchmarked_at' | 'created_at' | 'updated_at'>;
export type ModelChanges = Partial<Omit<NewModel, 'model_id'>>;

const JSON_COLUMNS = ['capabilities', 'performance', 'cost'] as const;

function serialized(values: Record<string, unknown>): Record<string, unknown> {
  const row = { ...values };
  for (const column of JSON_COLUMNS) if (row[column] !== undefined) row[column] = JSON.stringify(row[column]);
  return row;
}

/** False when a model with that id exists. */
export async function insertModel(db: Knex, model: NewModel): Promise<boolean> {
  const inserted = await db('models')
    .insert(serialized({ ...model }))
    .onConflict('model_id')
    .ignore()
    .returning('model_id');
  return inserted.length > 0;
}

/** Inserts the models that do not exist yet; returns how many were new. */
export async function insertMissingModels(db: Knex, models: readonly NewModel[]): Promise<number> {
  if (models.length === 0) return 0;
  const inserted = await db('models')
    .insert(models.map((model) => serialized({ ...model })))
    .onConflict('model_id')
    .ignore()
    .returning('model_id');
  return inserted.length;
}

export async function updateModel(db: Knex, modelId: string, changes: ModelChanges): Promise<ModelRow | undefined> {
  const [row] = await db<ModelRow>('models')
    .where({ model_id: modelId })
    .update({ ...serialized({ ...changes }), updated_at: db.fn.now() } as never)
    .returning('*');
  return row;
}

export async function findModel(db: Knex, modelId: string): Promise<ModelRow | undefined> {
  return db<ModelRow>('models').where({ model_id: modelId }).first();
}

export interface ModelFilter {
  provider?: string | undefined;
  status?: ModelStatus | undefined;
  min_reasoning?: number | undefined;
  min_coding?: number | undefined;
}

export async function listModels(db: Knex, filter: ModelFilter): Promise<ModelRow[]> {
  const query = db<ModelRow>('models').select('*').orderBy('model_id');
  if (filter.provider) query.where('provider', filter.provider);
  if (filter.status) query.where('status', filter.status);
  if (filter.min_reasoning !== undefined)
    query.whereRaw(`(capabilities->>'reasoning')::double precision >= ?`, [filter.min_reasoning]);
  if (filter.min_coding !== undefined)
    query.whereRaw(`(capabilities->>'coding')::double precision >= ?`, [filter.min_coding]);
  return query;
}

/** The models a reasoning request may be routed to: every one of the providers named, whatever its status (a pinned model may be experimental). */
export async function modelsOfProviders(db: Knex, providers: readonly string[]): Promise<ModelRow[]> {
  if (providers.length === 0) return [];
  return db<ModelRow>('models').select('*').whereIn('provider', providers);
}

export async function isSeedVersionApplied(db: Knex, version: string): Promise<boolean> {
  return (await db('model_seed_versions').where({ version }).first()) !== undefined;
}

export async function recordSeedVersion(db: Knex, version: string, modelsInserted: number): Promise<boolean> {
  const inserted = await db('model_seed_versions')
    .insert({ version, models_inserted: modelsInserted })
    .onConflict('version')
    .ignore()
    .returning('version');
  return inserted.length > 0;
}

export interface BenchmarkRow {
  benchmark_id: string;
  model_id: string;
  organization_id: string;
  benchmark_type: string;
  benchmark_suite: string;
  score: number;
  run_at: Date;
  run_by: string | null;
  test_cases_passed: number | null;
  test_cases_total: number | null;
  raw_results: Record<string, unknown> | null;
  submitted_by: string;
  created_at: Date;
}

export async function insertBenchmark(db: Knex, benchmark: Omit<BenchmarkRow, 'created_at'>): Promise<BenchmarkRow> {
  const [row] = await db<BenchmarkRow>('model_benchmarks')
    .insert({
      ...benchmark,
      raw_results: benchmark.raw_results === null ? null : (JSON.stringify(benchmark.raw_results) as never),
    })
    .returning('*');
  return row!;
}

/** Locks the model's row for the benchmark's read-modify-write of its capability scores. */
export async function findModelForUpdate(db: Knex, modelId: string): Promise<ModelRow | undefined> {
  return db<ModelRow>('models').where({ model_id: modelId }).forUpdate().first();
}

export async function recordBenchmarkOnModel(
  db: Knex,
  modelId: string,
  capabilities: Record<Capability, number>,
  runAt: Date,
): Promise<ModelRow> {
  const [row] = await db<ModelRow>('models')
    .where({ model_id: modelId })
    .update({
      capabilities: JSON.stringify(capabilities) as never,
      benchmark_count: db.raw('benchmark_count + 1') as never,
      last_benchmarked_at: db.raw('greatest(last_benchmarked_at, ?::timestamptz)', [runAt.toISOString()]) as never,
      updated_at: db.fn.now() as never,
    })
    .returning('*');
  return row!;
}

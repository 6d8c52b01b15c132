import type { Knex } from 'knex';
import type { BenchmarkRow, ModelRow } from '../../db/models';
import { findModel, listModels } from '../../db/models';
import type { ModelCatalog } from '../../services/models/catalog';
import { changeModel, createModel, modelStatistics, submitBenchmark } from '../../services/models/registry';
import { Problem } from '../problem';
import type { ApiBuilder } from '../route';
import { routeGroup, type RouteGroup } from '../route-group';
import {
  BenchmarkRequestSchema,
  BenchmarkSchema,
  CreateModelSchema,
  ListModelsQuerySchema,
  ModelIdSchema,
  ModelSchema,
  ModelStatisticsSchema,
  UpdateModelSchema,
} from '../schemas/models';
import { z } from '../schemas/zod';

const ModelParamsSchema = z.object({ model_id: ModelIdSchema });

function modelView(row: ModelRow) {
  return {
    model_id: row.model_id,
    provider: row.provider,
    display_name: row.display_name,
    description: row.description,
    capabilities: row.capabilities,
    context_length: row.context_length,
    supports_streaming: row.supports_streaming,
    supports_function_calling: row.supports_function_calling,
    supports_vision: row.supports_vision,
    performance: row.performance,
    cost: row.cost,
    status: row.status,
    benchmark_count: row.benchmark_count,
    last_benchmarked_at: row.last_benchmarked_at?.toISOString() ?? null,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}

/** A recorded benchmark, with what it did to its model's count and scores. */
function benchmarkView(benchmark: BenchmarkRow, model: ModelRow) {
  return {
    id: benchmark.benchmark_id,
    model_id: benchmark.model_id,
    benchmark_type: benchmark.benchmark_type,
    benchmark_suite: benchmark.benchmark_suite,
    score: benchmark.score,
    run_at: benchmark.run_at.toISOString(),
    run_by: benchmark.run_by,
    test_cases_passed: benchmark.test_cases_passed,
    test_cases_total: benchmark.test_cases_total,
    raw_results: benchmark.raw_results,
    model: {
      benchmark_count: model.benchmark_count,
      last_benchmarked_at: model.last_benchmarked_at?.toISOString() ?? null,
      capabilities: model.capabilities,
    },
  };
}

const ADMINISTERED =
  'The registry is the deployment’s, shared by every organization: administered with cloud:admin:global, read with platform:read.';

const modelNotFound = (modelId: string) => new Problem('model_not_found', `No model ${modelId}`);

type ModelRouteDeps = { db: Knex; catalog: ModelCatalog };

/** The model registry: the models (listed, registered, read, changed), their statistics, and benchmark results. */
export function registerModelRoutes(api: ApiBuilder, deps: ModelRouteDeps): void {
  const models = routeGroup(api, { tags: ['Models'], auth: 'platform:read', rateLimit: 'default' });
  registerModelCollection(models, deps);
  registerModel(models, deps);
  registerModelStatistics(models, deps.db);
  registerBenchmarks(models, deps);
}

function registerModelCollection(models: RouteGroup, deps: ModelRouteDeps): void {
  models.route({
    method: 'get',
    path: '/v1/models',
    operationId: 'listModels',
    summary: 'List the models of the registry',
    description:
      'Filtered by provider, status (active by default) and minimum reasoning or coding score; ordered by model_id.',
    request: { query: ListModelsQuerySchema },
    responses: {
      200: { description: 'The models', schema: z.object({ models: z.array(ModelSchema) }).openapi('ModelList') },
    },
    handler: async ({ query }) => ({
      status: 200,
      body: { models: (await listModels(deps.db, query)).map(modelView) },
    }),
  });

  models.route({
    method: 'post',
    path: '/v1/models',
    operationId: 'createModel',
    summary: 'Register a model',
    description: `${ADMINISTERED} The model is routable once its provider is configured (REASONING_PROVIDERS).`,
    auth: 'cloud:admin:global',
    request: { body: CreateModelSchema },
    responses: { 201: { description: 'The model', schema: ModelSchema }, 409: { description: 'model_exists' } },
    handler: async ({ body, principal }) => {
      const outcome = await createModel(deps.db, principal.id, body);
      if (!outcome.ok) throw new Problem('model_exists', `The model ${body.model_id} is already registered`);
      deps.catalog.invalidate();
      return {
        status: 201,
        body: modelView(outcome.model),
        headers: { Location: `/v1/models/${encodeURIComponent(body.model_id)}` },
      };
    },
  });
}

function registerModel(models: RouteGroup, deps: ModelRouteDeps): void {
  models.get({
    path: '/v1/models/{model_id}',
    operationId: 'getModel',
    summary: 'Read a model',
    params: ModelParamsSchema,
    found: { description: 'The model', schema: ModelSchema },
    missing: { code: 'model_not_found', detail: ({ params }) => `No model ${params.model_id}` },
    find: ({ params }) => findModel(deps.db, params.model_id),
    view: modelView,
  });

  models.route({
    method: 'patch',
    path: '/v1/models/{model_id}',
    operationId: 'updateModel',
    summary: 'Change a model: scores, prices, performance, status (deprecate it with status deprecated)',
    description: ADMINISTERED,
    auth: 'cloud:admin:global',
    request: { params: ModelParamsSchema, body: UpdateModelSchema },
    responses: {
      200: { description: 'The model as changed', schema: ModelSchema },
      404: { description: 'model_not_found' },
    },
    handler: async ({ params, body, principal }) => {
      const row = await changeModel(deps.db, principal.id, params.model_id, body);
      if (!row) throw modelNotFound(params.model_id);
      deps.catalog.invalidate();
      return { status: 200, body: modelView(row) };
    },
  });
}

function registerModelStatistics(models: RouteGroup, db: Knex): void {
  models.route({
    method: 'get',
    path: '/v1/models/{model_id}/statistics',
    operationId: 'getModelStatistics',
    summary: 'A model’s statistics over the last 30 days, from the organization’s recorded calls',
    description:
      'Every attempt at the model counts, fallbacks and failures included; by_complexity splits them by the complexity asked.',
    request: { params: ModelParamsSchema },
    responses: {
      200: { description: 'The statistics', schema: ModelStatisticsSchema },
      404: { description: 'model_not_found' },
    },
    handler: async ({ params, principal }) => {
      const statistics = await modelStatistics(db, principal.organization_id, params.model_id, new Date());
      if (!statistics) throw modelNotFound(params.model_id);
      const { start, end } = statistics.window;
      return { status: 200, body: { ...statistics, window: { start: start.toISOString(), end: end.toISOString() } } };
    },
  });
}

function registerBenchmarks(models: RouteGroup, deps: ModelRouteDeps): void {
  models.route({
    method: 'post',
    path: '/v1/models/benchmarks',
    operationId: 'submitModelBenchmark',
    summary: 'Submit a benchmark result for a model',
    description:
      `${ADMINISTERED} Increments the model’s benchmark_count, sets last_benchmarked_at to run_at (now when absent) if later, and moves the capability ` +
      'the benchmark type measures a fifth of the way towards score/10 (docs/platform.md).',
    auth: 'cloud:admin:global',
    request: { body: BenchmarkRequestSchema },
    responses: {
      201: { description: 'The benchmark as recorded, with the model’s new count and scores', schema: BenchmarkSchema },
      404: { description: 'model_not_found' },
    },
    handler: async ({ body, principal }) => {
      const outcome = await submitBenchmark(deps.db, principal, body);
      if (!outcome.ok) throw modelNotFound(body.model_id);
      deps.catalog.invalidate();
      return { status: 201, body: benchmarkView(outcome.benchmark, outcome.model) };
    },
  });
}

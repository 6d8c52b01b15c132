import { BUDGETS, CAPABILITIES, COMPLEXITIES, MODEL_STATUSES, TASKS } from '../../domain/models/selection';
import { TimestampSchema } from './common';
import { z } from './zod';

const score = z.number().min(0).max(10);
const unit = z.number().min(0).max(1);
const money = z.number().min(0).max(1000);

export const ModelIdSchema = z
  .string()
  .regex(/^[A-Za-z0-9][A-Za-z0-9._:/@+-]{0,199}$/, 'must be a model id: letters, digits and . _ : / @ + -, up to 200')
  .openapi({ example: 'gpt-4o-mini' });

export const ProviderNameSchema = z
  .string()
  .regex(/^[A-Za-z0-9._-]{1,64}$/, 'must be a provider name as configured in REASONING_PROVIDERS')
  .openapi({ example: 'openai' });

const CapabilitiesSchema = z
  .object(
    Object.fromEntries(CAPABILITIES.map((capability) => [capability, score])) as Record<
      (typeof CAPABILITIES)[number],
      typeof score
    >,
  )
  .strict()
  .openapi('ModelCapabilities', { description: 'Capability scores, 0 to 10' });

const PerformanceSchema = z
  .object({ avg_latency_ms: z.number().min(0).max(3_600_000), reliability: unit, success_rate: unit })
  .strict()
  .openapi('ModelPerformance');

const CostSchema = z
  .object({ input_cost_per_1k: money, output_cost_per_1k: money })
  .strict()
  .openapi('ModelCost', { description: 'US dollars per 1,000 tokens' });

const modelFields = {
  provider: ProviderNameSchema,
  display_name: z.string().min(1).max(200),
  description: z.string().max(2000).nullable().default(null),
  capabilities: CapabilitiesSchema,
  context_length: z.number().int().min(1).max(100_000_000),
  supports_streaming: z.boolean().default(true),
  supports_function_calling: z.boolean().default(false),
  supports_vision: z.boolean().default(false),
  performance: PerformanceSchema,
  cost: CostSchema,
  status: z.enum(MODEL_STATUSES).default('active'),
};

export const CreateModelSchema = z
  .object({
    model_id: ModelIdSchema.openapi({
      description: 'The name the provider knows the model by (sent as model in chat completions)',
    }),
    ...modelFields,
  })
  .strict()
  .openapi('CreateModelRequest');

export const UpdateModelSchema = z
  .object({
    provider: modelFields.provider.optional(),
    display_name: modelFields.display_name.optional(),
    description: z.string().max(2000).nullable().optional(),
    capabilities: CapabilitiesSchema.optional(),
    context_length: modelFields.context_length.optional(),
    supports_streaming: z.boolean().optional(),
    supports_function_calling: z.boolean().optional(),
    supports_vision: z.boolean().optional(),
    performance: PerformanceSchema.optional(),
    cost: CostSchema.optional(),
    status: z.enum(MODEL_STATUSES).optional(),
  })
  .strict()
  .refine((body) => Object.keys(body).length > 0, { message: 'name at least one field to change' })
  .openapi('UpdateModelRequest');

export const ModelSchema = z
  .object({
    model_id: z.string(),
    provider: z.string(),
    display_name: z.string(),
    description: z.string().nullable(),
    capabilities: CapabilitiesSchema,
    context_length: z.number().int(),
    supports_streaming: z.boolean(),
    supports_function_calling: z.boolean(),
    supports_vision: z.boolean(),
    performance: PerformanceSchema,
    cost: CostSchema,
    status: z.enum(MODEL_STATUSES),
    benchmark_count: z.number().int(),
    last_benchmarked_at: z.string().nullable().openapi({ format: 'date-time' }),
    created_at: z.string().openapi({ format: 'date-time' }),
    updated_at: z.string().openapi({ format: 'date-time' }),
  })
  .openapi('Model');

export const ListModelsQuerySchema = z.object({
  provider: ProviderNameSchema.optional(),
  status: z.enum(MODEL_STATUSES).default('active'),
  min_reasoning: z.coerce.number().min(0).max(10).optional(),
  min_coding: z.coerce.number().min(0).max(10).optional(),
});

export const ModelStatisticsSchema = z
  .object({
    model_id: z.string(),
    window: z.object({
      start: z.string().openapi({ format: 'date-time' }),
      end: z.string().openapi({ format: 'date-time' }),
    }),
    total_requests: z.number().int(),
    success_rate: z.number(),
    avg_latency_ms: z.number(),
    avg_cost_usd: z.number(),
    by_complexity: z.record(
      z.string(),
      z.object({ count: z.number().int(), success_rate: z.number(), avg_cost: z.number() }),
    ),
  })
  .openapi('ModelStatistics');

export const BenchmarkRequestSchema = z
  .object({
    model_id: ModelIdSchema,
    benchmark_type: z.string().min(1).max(100).openapi({
      description:
        'A capability it measures (reasoning, coding, summarization, multilingual, math, creative, instruction_following) moves that score; other types are only recorded',
    }),
    benchmark_suite: z.string().min(1).max(200),
    score: z.number().min(0).max(100),
    run_at: TimestampSchema.optional(),
    run_by: z.string().min(1).max(200).optional(),
    test_cases_passed: z.number().int().min(0).max(1_000_000_000).optional(),
    test_cases_total: z.number().int().min(0).max(1_000_000_000).optional(),
    raw_results: z.record(z.string(), z.unknown()).optional(),
  })
  .strict()
  .refine(
    (body) =>
      body.test_cases_passed === undefined ||
      body.test_cases_total === undefined ||
      body.test_cases_passed <= body.test_cases_total,
    {
      message: 'test_cases_passed must not exceed test_cases_total',
      path: ['test_cases_passed'],
    },
  )
  .openapi('BenchmarkSubmission');

export const BenchmarkSchema = z
  .object({
    id: z.string(),
    model_id: z.string(),
    benchmark_type: z.string(),
    benchmark_suite: z.string(),
    score: z.number(),
    run_at: z.string().openapi({ format: 'date-time' }),
    run_by: z.string().nullable(),
    test_cases_passed: z.number().int().nullable(),
    test_cases_total: z.number().int().nullable(),
    raw_results: z.record(z.string(), z.unknown()).nullable(),
    model: z.object({
      benchmark_count: z.number().int(),
      last_benchmarked_at: z.string().nullable(),
      capabilities: CapabilitiesSchema,
    }),
  })
  .openapi('Benchmark');

const MessageSchema = z
  .object({ role: z.enum(['system', 'user', 'assistant']), content: z.string().max(200_000) })
  .strict();

export const ReasonRequestSchema = z
  .object({
    messages: z.array(MessageSchema).min(1).max(200),
    task: z.enum(TASKS).default('general'),
    complexity: z.enum(COMPLEXITIES).default('medium'),
    budget: z.enum(BUDGETS).default('optimize'),
    pinned_model: ModelIdSchema.optional().openapi({
      description: 'Use this model and no other (no fallback); an unknown or deprecated one is refused',
    }),
    entity_id: z
      .string()
      .min(1)
      .max(200)
      .optional()
      .openapi({ description: 'What the call is about (a task, a ticket…), kept with its record' }),
    temperature: z.number().min(0).max(2).optional(),
    max_tokens: z.number().int().min(1).max(1_000_000).optional(),
    prompt_key: z.string().min(1).max(300).optional().openapi({
      description:
        'A registered prompt (short key or prompt URI) whose active version leads the messages as the system message; needs prompt:read:{key}',
    }),
    prompt_variables: z
      .record(z.string(), z.unknown())
      .optional()
      .openapi({ description: 'Checked against the prompt’s input_schema and put in its {{name}} placeholders' }),
  })
  .strict()
  .openapi('ReasonRequest');

const RoutingDecisionSchema = z
  .object({
    selected: z.string(),
    reason: z.string(),
    alternatives: z.array(z.object({ model: z.string(), provider: z.string(), score: z.number() })),
  })
  .openapi('ModelRoutingDecision');

const AttemptSchema = z.object({
  model: z.string(),
  provider: z.string(),
  outcome: z.enum(['succeeded', 'failed']),
  error: z.string().optional(),
  durationMs: z.number().int(),
});

export const ReasonMetadataSchema = z.object({
  costUsd: z.number(),
  durationMs: z.number().int(),
  routingDecision: RoutingDecisionSchema,
  callId: z.string().openapi({ description: 'The recorded call: its provenance subject, and where signals go' }),
  usageEstimated: z
    .boolean()
    .openapi({ description: 'true when the provider reported no usage and the counts are estimated from lengths' }),
  attempts: z.array(AttemptSchema),
});

export const ReasonResponseSchema = z
  .object({
    success: z.literal(true),
    data: z.object({
      model: z.string(),
      provider: z.string(),
      text: z.string(),
      usage: z.object({ inputTokens: z.number().int(), outputTokens: z.number().int(), totalTokens: z.number().int() }),
    }),
    metadata: ReasonMetadataSchema,
  })
  .openapi('ReasonResponse');

export const SignalRequestSchema = z
  .object({
    signal: z
      .enum(['positive', 'negative', 'rephrase', 'correction'])
      .openapi({ description: 'negative and correction make the call count as unsuccessful in prompt statistics' }),
    note: z.string().max(2000).optional(),
  })
  .strict()
  .openapi('ReasoningSignalRequest');

export const SignalSchema = z
  .object({
    call_id: z.string(),
    signal: z.string(),
    note: z.string().nullable(),
    recorded_at: z.string().openapi({ format: 'date-time' }),
  })
  .openapi('ReasoningSignal');

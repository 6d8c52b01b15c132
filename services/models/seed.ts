import { z } from 'zod';
import { CAPABILITIES, MODEL_STATUSES } from '../../domain/models/selection';
import seedFile from './seed/models.json';
import type { ModelSeed } from './registry';

const score = z.number().min(0).max(10);
const unit = z.number().min(0).max(1);

/** The seed file is data: read by the same rules as the API's model body, so a bad edit fails at boot and in tests. */
const SeedSchema = z
  .object({
    version: z.string().min(1),
    models: z.array(
      z
        .object({
          model_id: z.string().min(1).max(200),
          provider: z.string().regex(/^[A-Za-z0-9._-]{1,64}$/),
          display_name: z.string().min(1),
          description: z.string().nullable(),
          capabilities: z
            .object(
              Object.fromEntries(CAPABILITIES.map((capability) => [capability, score])) as Record<
                (typeof CAPABILITIES)[number],
                typeof score
              >,
            )
            .strict(),
          context_length: z.number().int().positive(),
          supports_streaming: z.boolean(),
          supports_function_calling: z.boolean(),
          supports_vision: z.boolean(),
          performance: z.object({ avg_latency_ms: z.number().min(0), reliability: unit, success_rate: unit }).strict(),
          cost: z.object({ input_cost_per_1k: z.number().min(0), output_cost_per_1k: z.number().min(0) }).strict(),
          status: z.enum(MODEL_STATUSES),
        })
        .strict(),
    ),
  })
  .strict();

/** services/models/seed/models.json: bump its version to bring new models to deployments that loaded an earlier one. */
export function modelSeed(): ModelSeed {
  return SeedSchema.parse(seedFile);
}

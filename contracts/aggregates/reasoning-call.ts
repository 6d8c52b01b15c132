import { z } from 'zod';
import { BUDGETS, COMPLEXITIES, TASKS } from '../../domain/models/selection';

/**
 * open: written as its first provider attempt starts, so that a call is on record even if the process ends
 * before it completes; recorded: completed with its provenance record; interrupted: closed by the sweep.
 */
export const REASONING_CALL_STATES = ['open', 'recorded', 'interrupted'] as const;

/**
 * A call of POST /v1/reason: what was asked, of which prompt, which model answered, with what usage and cost.
 * Services hold it as the reasoning_calls table stores it (db/reasoning-calls.ts); it has no view of its own
 * (the answer reports its id, and signals and statistics are about it). Its provenance record keeps its own
 * key list. Fields are in the table's order.
 */
export const ReasoningCall = z.object({
  call_id: z.string(),
  organization_id: z.string(),
  principal_id: z.string(),
  /** What the call is about (a task, a ticket…), as the caller named it. */
  entity_id: z.string().nullable(),
  task: z.enum(TASKS),
  complexity: z.enum(COMPLEXITIES),
  budget: z.enum(BUDGETS),
  prompt_key: z.string().nullable(),
  prompt_version: z.string().nullable(),
  /** SHA-256 of the messages sent, as canonical JSON. */
  prompt_hash: z.string(),
  /** The messages themselves, only where the organization's policy keeps them. */
  prompt_text: z.string().nullable(),
  success: z.boolean(),
  /** The model that answered; null while open and when none did. */
  model_id: z.string().nullable(),
  provider: z.string().nullable(),
  input_tokens: z.number().int(),
  output_tokens: z.number().int(),
  cost_usd: z.number(),
  duration_ms: z.number().int(),
  streamed: z.boolean(),
  routing_decision: z.record(z.string(), z.unknown()),
  state: z.enum(REASONING_CALL_STATES),
  created_at: z.date(),
});
export type ReasoningCall = z.infer<typeof ReasoningCall>;

/** One provider tried within a call, in order; model statistics count every attempt. Stored in reasoning_attempts. */
export const ReasoningAttempt = z.object({
  call_id: z.string(),
  /** 1 for the selected model, then each fallback. */
  attempt: z.number().int(),
  organization_id: z.string(),
  model_id: z.string(),
  provider: z.string(),
  complexity: z.enum(COMPLEXITIES),
  success: z.boolean(),
  error: z.string().nullable(),
  input_tokens: z.number().int(),
  output_tokens: z.number().int(),
  cost_usd: z.number(),
  duration_ms: z.number().int(),
  created_at: z.date(),
});
export type ReasoningAttempt = z.infer<typeof ReasoningAttempt>;

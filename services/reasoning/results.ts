import type { ModelChoice } from './plan';

/** What a reasoning call gives back: the answer with its usage and attempts, or why none came. */

export interface AttemptRecord {
  model: string;
  provider: string;
  outcome: 'succeeded' | 'failed';
  error?: string;
  durationMs: number;
}

export interface ReasonResult {
  callId: string;
  model: string;
  provider: string;
  text: string;
  usage: { inputTokens: number; outputTokens: number; totalTokens: number };
  /** The provider reported no usage: the counts are estimated from the text's length. */
  usageEstimated: boolean;
  costUsd: number;
  durationMs: number;
  modelChoice: ModelChoice;
  attempts: AttemptRecord[];
}

/** No provider answered; the attempts say what each one did. */
export type ReasonFailure = {
  ok: false;
  code: 'model_providers_unavailable';
  callId: string;
  attempts: AttemptRecord[];
};

export type RecordedCall = { ok: true; result: ReasonResult } | ReasonFailure;

import { createHash, randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import { appendProvenance, type TenantProvenanceInput } from '../../db/ledger';
import type { ModelRow } from '../../db/models';
import { completedCallWrites, insertOpenCall, type OpenCall, type ReasoningAttemptRow } from '../../db/reasoning-calls';
import { canonicalJson } from '../../domain/common/canonical-json';
import { costUsd, estimateTokens } from '../../domain/models/selection';
import { ORCH_CORE_DID } from '../../domain/provenance/records';
import type { Logger } from '../../lib/logger';
import { ProviderError, type ChatMessage, type TokenUsage } from '../../lib/openai-compatible';
import type { Principal } from '../identity/scopes';
import { askedOf, REASONED_STEP } from './record';
import type { ReasonPlan } from './plan';
import type { ReasoningSettings } from './settings';
import type { AttemptRecord, ReasonFailure, ReasonResult, RecordedCall } from './results';

export interface CallDeps {
  db: Knex;
  settings: ReasoningSettings;
  logger: Logger;
}

interface Attempt {
  model: ModelRow;
  startedAt: number;
  durationMs: number;
  error?: string;
}

export type Answer = { model: ModelRow; text: string; usage: TokenUsage; estimated: boolean };

export function usageOrEstimate(
  usage: TokenUsage | undefined,
  messages: readonly ChatMessage[],
  text: string,
): { usage: TokenUsage; estimated: boolean } {
  if (usage) return { usage, estimated: false };
  return {
    usage: { prompt_tokens: estimateTokens(messages), completion_tokens: Math.ceil(text.length / 4) },
    estimated: true,
  };
}

/**
 * A call in flight: its row, written open as the first attempt starts; its attempts so far; and the one
 * statement that completes it with its provenance record when it ends.
 */
export class CallRecorder {
  readonly callId = `rsn_${randomUUID()}`;
  readonly startedAt = Date.now();
  private readonly attempts: Attempt[] = [];
  private readonly keepText: boolean;
  /** The call's row as it starts: no answer yet, so no model, usage or cost. */
  private readonly openCall: OpenCall;
  private opened: Promise<void> | undefined;

  constructor(
    private readonly deps: CallDeps,
    readonly plan: ReasonPlan,
    private readonly principal: Principal,
    streamed: boolean,
  ) {
    this.keepText = deps.settings.promptTextOrganizations.includes(principal.organization_id);
    const { request } = plan;
    this.openCall = {
      call_id: this.callId,
      organization_id: principal.organization_id,
      principal_id: principal.id,
      entity_id: request.entity_id ?? null,
      task: request.task,
      complexity: request.complexity,
      budget: request.budget,
      prompt_key: request.prompt?.key ?? null,
      prompt_version: request.prompt?.version ?? null,
      prompt_hash: createHash('sha256').update(canonicalJson(request.messages)).digest('hex'),
      prompt_text: this.keepText ? canonicalJson(request.messages) : null,
      success: false,
      model_id: null,
      provider: null,
      input_tokens: 0,
      output_tokens: 0,
      cost_usd: 0,
      duration_ms: 0,
      streamed,
      routing_decision: { ...plan.modelChoice },
    };
  }

  /**
   * Writes the call's open row, once. It runs beside the first attempt (a provider takes far longer than an
   * insert) and is awaited before any answer leaves: an answer a client saw always has its call on record.
   */
  open(): Promise<void> {
    if (!this.opened) {
      this.opened = insertOpenCall(this.deps.db, this.openCall);
      // Awaited by whoever answers; until then a failure must not count as unhandled.
      this.opened.catch(() => undefined);
    }
    return this.opened;
  }

  remainingMs(): number {
    return this.deps.settings.totalTimeoutMs - (Date.now() - this.startedAt);
  }

  /** The candidates still to try within the budget of attempts and time. */
  *candidates(): Generator<ModelRow> {
    for (const model of this.plan.candidates.slice(0, this.deps.settings.maxAttempts)) {
      if (this.remainingMs() <= 0) return;
      yield model;
    }
  }

  succeeded(model: ModelRow, startedAt: number): void {
    this.attempts.push({ model, startedAt, durationMs: Date.now() - startedAt });
  }

  /** Counts a provider's failure as a failed attempt; anything else is not the provider's and is rethrown. */
  failed(model: ModelRow, startedAt: number, error: unknown): void {
    if (!(error instanceof ProviderError)) throw error;
    this.attempts.push({ model, startedAt, durationMs: Date.now() - startedAt, error: error.message });
    const { kind, status, message } = error;
    const attempt = { call_id: this.callId, model_id: model.model_id, provider: model.provider };
    this.deps.logger.warn('reasoning provider attempt failed', { ...attempt, kind, status, error: message });
  }

  private attemptRecords(): AttemptRecord[] {
    return this.attempts.map((attempt) => ({
      model: attempt.model.model_id,
      provider: attempt.model.provider,
      outcome: attempt.error === undefined ? 'succeeded' : 'failed',
      ...(attempt.error !== undefined ? { error: attempt.error } : {}),
      durationMs: attempt.durationMs,
    }));
  }

  /** The call's outcome, and the one statement that completes its row, adds its attempts and appends its provenance record. */
  private outcome(answer: Answer | undefined): { recorded: RecordedCall; write: () => Promise<unknown> } {
    const durationMs = Date.now() - this.startedAt;
    const cost = answer ? costUsd(answer.model.cost, answer.usage.prompt_tokens, answer.usage.completion_tokens) : 0;
    const attempts = this.attemptRecords();
    const writes = completedCallWrites(
      {
        call_id: this.callId,
        success: answer !== undefined,
        model_id: answer?.model.model_id ?? null,
        provider: answer?.model.provider ?? null,
        input_tokens: answer?.usage.prompt_tokens ?? 0,
        output_tokens: answer?.usage.completion_tokens ?? 0,
        cost_usd: cost,
        duration_ms: durationMs,
      },
      this.attemptRows(answer, cost),
    );
    const record = this.provenanceRecord(answer, { cost, durationMs, attempts });
    // One statement, one round trip: the call completed, its attempts and its provenance record commit together.
    const write = () => appendProvenance(this.deps.db, record, writes);
    if (!answer)
      return { recorded: { ok: false, code: 'model_providers_unavailable', callId: this.callId, attempts }, write };
    const { usage } = answer;
    const result: ReasonResult = {
      callId: this.callId,
      model: answer.model.model_id,
      provider: answer.model.provider,
      text: answer.text,
      usage: {
        inputTokens: usage.prompt_tokens,
        outputTokens: usage.completion_tokens,
        totalTokens: usage.prompt_tokens + usage.completion_tokens,
      },
      usageEstimated: answer.estimated,
      costUsd: cost,
      durationMs,
      modelChoice: this.plan.modelChoice,
      attempts,
    };
    return { recorded: { ok: true, result }, write };
  }

  private attemptRows(answer: Answer | undefined, cost: number): ReasoningAttemptRow[] {
    return this.attempts.map((attempt, index) => {
      const usage = attempt.error === undefined ? answer?.usage : undefined;
      return {
        call_id: this.callId,
        attempt: index + 1,
        organization_id: this.principal.organization_id,
        model_id: attempt.model.model_id,
        provider: attempt.model.provider,
        complexity: this.plan.request.complexity,
        success: attempt.error === undefined,
        error: attempt.error ?? null,
        input_tokens: usage?.prompt_tokens ?? 0,
        output_tokens: usage?.completion_tokens ?? 0,
        cost_usd: usage ? cost : 0,
        duration_ms: attempt.durationMs,
      };
    });
  }

  private provenanceRecord(
    answer: Answer | undefined,
    totals: { cost: number; durationMs: number; attempts: AttemptRecord[] },
  ): TenantProvenanceInput {
    const { request, modelChoice } = this.plan;
    const organization = this.principal.organization_id;
    return {
      organization_id: organization,
      entry: {
        subject_id: this.callId,
        step_id: REASONED_STEP,
        timestamp: new Date().toISOString(),
        actor: { type: 'orch_core' as const, did: ORCH_CORE_DID },
        action: answer ? 'reasoning_completed' : 'reasoning_failed',
        input_data: {
          ...askedOf(this.openCall),
          ...(this.principal.actor ? { passport: this.principal.actor.did } : {}),
          ...(this.keepText ? { messages: request.messages } : {}),
        },
        output_data: {
          model: answer?.model.model_id ?? null,
          provider: answer?.model.provider ?? null,
          input_tokens: answer?.usage.prompt_tokens ?? 0,
          output_tokens: answer?.usage.completion_tokens ?? 0,
          usage_estimated: answer?.estimated ?? false,
          cost_usd: totals.cost,
          duration_ms: totals.durationMs,
          attempts: totals.attempts,
          routing_decision: { selected: modelChoice.selected, reason: modelChoice.reason },
        },
        reasoning: answer
          ? `${answer.model.model_id} (${answer.model.provider}) answered after ${totals.attempts.length} attempt(s): ${modelChoice.reason}`
          : `No provider answered in ${totals.attempts.length} attempt(s)`,
      },
    };
  }

  /** Completes the call on record before returning its outcome. */
  async record(answer: Answer | undefined): Promise<RecordedCall> {
    await this.open();
    const { recorded, write } = this.outcome(answer);
    await write();
    return recorded;
  }

  /** Completes the call on record as failed; a call without an answer has no result. */
  async recordFailure(): Promise<ReasonFailure> {
    const recorded = await this.record(undefined);
    if (recorded.ok) throw new Error('a call recorded without an answer has no result');
    return recorded;
  }

  /**
   * Returns the answer once the open row is committed, and completes the call while the answer is sent: the
   * completion is off the answer's path, and if the process ends before it commits, the sweep records the
   * call as interrupted (services/reasoning/interrupted.ts).
   */
  async answered(answer: Answer): Promise<{ ok: true; result: ReasonResult }> {
    await this.open();
    const { recorded, write } = this.outcome(answer);
    // After this turn of the event loop, so that even the completion's serialization is not on the answer's path.
    setImmediate(() => {
      write().catch((error: unknown) => {
        this.deps.logger.error('completing a reasoning call failed; the sweep records it as interrupted', {
          call_id: this.callId,
          error,
        });
      });
    });
    if (!recorded.ok) throw new Error('a call with an answer has a result');
    return recorded;
  }
}

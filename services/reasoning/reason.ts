import { createHash, randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import { appendProvenance } from '../../db/ledger';
import { findModel, type ModelRow } from '../../db/models';
import { completedCallWrites, insertOpenCall, type ReasoningAttemptRow } from '../../db/reasoning-calls';
import { canonicalJson } from '../../domain/canonical-json';
import {
  costUsd,
  DEFAULT_OUTPUT_TOKENS,
  estimateTokens,
  MAX_ALTERNATIVES,
  selectModel,
  type Budget,
  type Complexity,
  type Exclusion,
  type Task,
} from '../../domain/model-selection';
import { ORCH_CORE_DID } from '../../domain/provenance';
import type { Logger } from '../../lib/logger';
import { chatCompletion, ProviderError, streamChatCompletion, type ChatMessage, type StreamPiece, type TokenUsage } from '../../lib/openai-compatible';
import type { Principal } from '../auth/tokens';
import type { ModelCatalog } from '../models/catalog';
import { REASONED_STEP, type InterruptedCallSweeper } from './interrupted';
import type { ReasoningSettings } from './settings';

export interface ReasonDeps {
  db: Knex;
  catalog: ModelCatalog;
  settings: ReasoningSettings;
  logger: Logger;
  sweeper: InterruptedCallSweeper;
}

export interface ReasonRequest {
  messages: ChatMessage[];
  task: Task;
  complexity: Complexity;
  budget: Budget;
  pinned_model?: string | undefined;
  entity_id?: string | undefined;
  temperature?: number | undefined;
  max_tokens?: number | undefined;
  /** The registered prompt the messages were built from (its content leads them as the system message). */
  prompt?: { key: string; version: string } | undefined;
}

export interface RoutingDecision {
  selected: string;
  reason: string;
  alternatives: Array<{ model: string; provider: string; score: number; factors?: Record<string, number> }>;
  excluded?: Exclusion[];
}

export interface ReasonPlan {
  request: ReasonRequest;
  /** The models to try, in order: the selected one, then its alternatives. */
  candidates: ModelRow[];
  routingDecision: RoutingDecision;
}

export type PlanRefusal = { ok: false; code: 'reasoning_not_configured' | 'pinned_model_unknown' | 'pinned_model_deprecated' | 'no_model_available'; detail: string };

export const HOW_TO_CONFIGURE =
  'Set REASONING_PROVIDERS to a JSON object from provider name to its OpenAI-compatible endpoint, e.g. ' +
  '{"ollama":{"base_url":"http://127.0.0.1:11434/v1"},"openai":{"base_url":"https://api.openai.com/v1","api_key":"…"}}, and restart the API; ' +
  'models of the registry (GET /v1/models) whose provider is configured become routable.';

const EXCLUSION_WORDS: Record<Exclusion['reason'], string> = {
  status: 'not active',
  provider_not_configured: 'provider not configured',
  context_too_small: 'context too small for the prompt and max_tokens',
};

/** The model a request goes to and the ordered fallbacks, or why none can take it. */
export async function planReasoning(deps: ReasonDeps, request: ReasonRequest): Promise<{ ok: true; plan: ReasonPlan } | PlanRefusal> {
  const providers = Object.keys(deps.settings.providers);
  if (providers.length === 0) return { ok: false, code: 'reasoning_not_configured', detail: `No model provider is configured. ${HOW_TO_CONFIGURE}` };
  const models = await deps.catalog.models();

  if (request.pinned_model !== undefined) {
    const pinned = models.find((model) => model.model_id === request.pinned_model);
    if (!pinned) {
      const known = await findModel(deps.db, request.pinned_model);
      if (!known) return { ok: false, code: 'pinned_model_unknown', detail: `No model ${request.pinned_model} in the registry; list them with GET /v1/models` };
      return { ok: false, code: 'reasoning_not_configured', detail: `${known.model_id} is served by ${known.provider}, which is not configured. ${HOW_TO_CONFIGURE}` };
    }
    if (pinned.status === 'deprecated') return { ok: false, code: 'pinned_model_deprecated', detail: `${pinned.model_id} is deprecated; pin an active model or let the service choose` };
    return { ok: true, plan: { request, candidates: [pinned], routingDecision: { selected: pinned.model_id, reason: `pinned_model ${pinned.model_id} (${pinned.status}), honoured without fallback`, alternatives: [] } } };
  }

  const selection = selectModel(models, { task: request.task, complexity: request.complexity, budget: request.budget, prompt_tokens: estimateTokens(request.messages), output_tokens: request.max_tokens ?? DEFAULT_OUTPUT_TOKENS }, new Set(providers));
  if (!selection.ok) {
    const why = selection.excluded.slice(0, 10).map((exclusion) => `${exclusion.model_id}: ${EXCLUSION_WORDS[exclusion.reason]}`);
    return {
      ok: false,
      code: 'no_model_available',
      detail: models.length === 0 ? `The registry has no model of the configured providers (${providers.join(', ')}); register one with POST /v1/models` : `No model can take this request (${why.join('; ')})`,
    };
  }
  const byId = new Map(models.map((model) => [model.model_id, model]));
  const [best, ...rest] = selection.ranked;
  return {
    ok: true,
    plan: {
      request,
      candidates: selection.ranked.map((scored) => byId.get(scored.model_id)!),
      routingDecision: {
        selected: best!.model_id,
        reason: selection.reason,
        alternatives: rest.slice(0, MAX_ALTERNATIVES).map((scored) => ({ model: scored.model_id, provider: scored.provider, score: scored.score })),
      },
    },
  };
}

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
  routingDecision: RoutingDecision;
  attempts: AttemptRecord[];
}

export type ReasonFailure = { ok: false; code: 'model_providers_unavailable'; detail: string; callId: string; attempts: AttemptRecord[] };

interface Attempt {
  model: ModelRow;
  startedAt: number;
  durationMs: number;
  error?: string;
  usage?: TokenUsage;
}

function usageOrEstimate(usage: TokenUsage | undefined, messages: readonly ChatMessage[], text: string): { usage: TokenUsage; estimated: boolean } {
  if (usage) return { usage, estimated: false };
  return { usage: { prompt_tokens: estimateTokens(messages), completion_tokens: Math.ceil(text.length / 4) }, estimated: true };
}

type Answer = { model: ModelRow; text: string; usage: TokenUsage; estimated: boolean };

/**
 * A call in flight: its row, written open as the first attempt starts; its attempts so far; and the one
 * statement that completes it with its provenance record when it ends.
 */
class CallRecorder {
  readonly callId = `rsn_${randomUUID()}`;
  readonly startedAt = Date.now();
  readonly attempts: Attempt[] = [];
  private readonly promptHash: string;
  private readonly keepText: boolean;
  private opened: Promise<void> | undefined;

  constructor(
    private readonly deps: ReasonDeps,
    private readonly plan: ReasonPlan,
    private readonly principal: Principal,
    private readonly streamed: boolean,
  ) {
    this.promptHash = createHash('sha256').update(canonicalJson(plan.request.messages)).digest('hex');
    this.keepText = deps.settings.promptTextOrganizations.includes(principal.organization_id);
  }

  /**
   * Writes the call's open row, once. It runs beside the first attempt (a provider takes far longer than an
   * insert) and is awaited before any answer leaves: an answer a client saw always has its call on record.
   */
  open(): Promise<void> {
    if (!this.opened) {
      const { request } = this.plan;
      this.opened = insertOpenCall(this.deps.db, {
        call_id: this.callId,
        organization_id: this.principal.organization_id,
        principal_id: this.principal.id,
        entity_id: request.entity_id ?? null,
        task: request.task,
        complexity: request.complexity,
        budget: request.budget,
        prompt_key: request.prompt?.key ?? null,
        prompt_version: request.prompt?.version ?? null,
        prompt_hash: this.promptHash,
        prompt_text: this.keepText ? canonicalJson(request.messages) : null,
        success: false,
        model_id: null,
        provider: null,
        input_tokens: 0,
        output_tokens: 0,
        cost_usd: 0,
        duration_ms: 0,
        streamed: this.streamed,
        routing_decision: { ...this.plan.routingDecision },
      });
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

  failed(model: ModelRow, startedAt: number, error: unknown): void {
    if (!(error instanceof ProviderError)) throw error;
    this.attempts.push({ model, startedAt, durationMs: Date.now() - startedAt, error: error.message });
    this.deps.logger.warn('reasoning provider attempt failed', { call_id: this.callId, model_id: model.model_id, provider: model.provider, kind: error.kind, status: error.status, error: error.message });
  }

  attemptRecords(): AttemptRecord[] {
    return this.attempts.map((attempt) => ({
      model: attempt.model.model_id,
      provider: attempt.model.provider,
      outcome: attempt.error === undefined ? 'succeeded' : 'failed',
      ...(attempt.error !== undefined ? { error: attempt.error } : {}),
      durationMs: attempt.durationMs,
    }));
  }

  /** The call's outcome, and the one statement that completes its row, adds its attempts and appends its provenance record. */
  private outcome(answer: Answer | undefined): { ok: true; result: ReasonResult; write: () => Promise<unknown> } | (ReasonFailure & { write: () => Promise<unknown> }) {
    const { request } = this.plan;
    const durationMs = Date.now() - this.startedAt;
    const organization = this.principal.organization_id;
    const cost = answer ? costUsd(answer.model.cost, answer.usage.prompt_tokens, answer.usage.completion_tokens) : 0;
    const attemptRows: ReasoningAttemptRow[] = this.attempts.map((attempt, index) => {
      const usage = attempt.error === undefined ? answer?.usage : undefined;
      return {
        call_id: this.callId,
        attempt: index + 1,
        organization_id: organization,
        model_id: attempt.model.model_id,
        provider: attempt.model.provider,
        complexity: request.complexity,
        success: attempt.error === undefined,
        error: attempt.error ?? null,
        input_tokens: usage?.prompt_tokens ?? 0,
        output_tokens: usage?.completion_tokens ?? 0,
        cost_usd: usage ? cost : 0,
        duration_ms: attempt.durationMs,
      };
    });
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
      attemptRows,
    );
    const record = {
      organization_id: organization,
      entry: {
        subject_id: this.callId,
        step_id: REASONED_STEP,
        timestamp: new Date().toISOString(),
        actor: { type: 'orch_core' as const, did: ORCH_CORE_DID },
        action: answer ? 'reasoning_completed' : 'reasoning_failed',
        input_data: {
          principal: this.principal.id,
          organization_id: organization,
          ...(this.principal.actor ? { passport: this.principal.actor.did } : {}),
          ...(request.entity_id !== undefined ? { entity_id: request.entity_id } : {}),
          task: request.task,
          complexity: request.complexity,
          budget: request.budget,
          prompt_hash: this.promptHash,
          ...(request.prompt ? { prompt_key: request.prompt.key, prompt_version: request.prompt.version } : {}),
          ...(this.keepText ? { messages: request.messages } : {}),
        },
        output_data: {
          model: answer?.model.model_id ?? null,
          provider: answer?.model.provider ?? null,
          input_tokens: answer?.usage.prompt_tokens ?? 0,
          output_tokens: answer?.usage.completion_tokens ?? 0,
          usage_estimated: answer?.estimated ?? false,
          cost_usd: cost,
          duration_ms: durationMs,
          attempts,
          routing_decision: { selected: this.plan.routingDecision.selected, reason: this.plan.routingDecision.reason },
        },
        reasoning: answer
          ? `${answer.model.model_id} (${answer.model.provider}) answered after ${attempts.length} attempt(s): ${this.plan.routingDecision.reason}`
          : `No provider answered in ${attempts.length} attempt(s)`,
      },
    };
    // One statement, one round trip: the call completed, its attempts and its provenance record commit together.
    const write = () => appendProvenance(this.deps.db, record, writes);
    if (!answer) {
      const tried = attempts.map((attempt) => `${attempt.model} (${attempt.provider}): ${attempt.error ?? 'failed'}`).join('; ');
      return { ok: false, code: 'model_providers_unavailable', detail: `No provider answered: ${tried || 'the time budget was spent before any attempt'}`, callId: this.callId, attempts, write };
    }
    const result: ReasonResult = {
      callId: this.callId,
      model: answer.model.model_id,
      provider: answer.model.provider,
      text: answer.text,
      usage: { inputTokens: answer.usage.prompt_tokens, outputTokens: answer.usage.completion_tokens, totalTokens: answer.usage.prompt_tokens + answer.usage.completion_tokens },
      usageEstimated: answer.estimated,
      costUsd: cost,
      durationMs,
      routingDecision: this.plan.routingDecision,
      attempts,
    };
    return { ok: true, result, write };
  }

  /** Completes the call on record before returning its outcome. */
  async record(answer: Answer | undefined): Promise<{ ok: true; result: ReasonResult } | ReasonFailure> {
    await this.open();
    const { write, ...outcome } = this.outcome(answer);
    await write();
    return outcome;
  }

  /**
   * Returns the answer once the open row is committed, and completes the call while the answer is sent: the
   * completion is off the answer's path, and if the process ends before it commits, the sweep records the
   * call as interrupted (services/reasoning/interrupted.ts).
   */
  async answered(answer: Answer): Promise<{ ok: true; result: ReasonResult }> {
    await this.open();
    const { write, ...outcome } = this.outcome(answer);
    // After this turn of the event loop, so that even the completion's serialization is not on the answer's path.
    setImmediate(() => {
      write().catch((error: unknown) => this.deps.logger.error('completing a reasoning call failed; the sweep records it as interrupted', { call_id: this.callId, error }));
    });
    if (!outcome.ok) throw new Error('a call with an answer has a result');
    return outcome;
  }
}

function chatRequest(plan: ReasonPlan, model: ModelRow) {
  return { model: model.model_id, messages: plan.request.messages, temperature: plan.request.temperature, max_tokens: plan.request.max_tokens };
}

/** Tries the selected model, then each alternative on a failure or timeout, within the attempts and the time budget. */
export async function reason(deps: ReasonDeps, plan: ReasonPlan, principal: Principal): Promise<{ ok: true; result: ReasonResult } | ReasonFailure> {
  deps.sweeper.due();
  const call = new CallRecorder(deps, plan, principal, false);
  void call.open();
  for (const model of call.candidates()) {
    const startedAt = Date.now();
    try {
      const answer = await chatCompletion(deps.settings.providers[model.provider]!, chatRequest(plan, model), AbortSignal.timeout(Math.min(deps.settings.attemptTimeoutMs, call.remainingMs())));
      call.attempts.push({ model, startedAt, durationMs: Date.now() - startedAt });
      const { usage, estimated } = usageOrEstimate(answer.usage, plan.request.messages, answer.text);
      return await call.answered({ model, text: answer.text, usage, estimated });
    } catch (error) {
      call.failed(model, startedAt, error);
    }
  }
  return failureOf(await call.record(undefined));
}

function failureOf(recorded: { ok: true; result: ReasonResult } | ReasonFailure): ReasonFailure {
  if (recorded.ok) throw new Error('a call recorded without an answer has no result');
  return recorded;
}

/** Server-sent events of a streamed answer: delta {text}, then done {the answer's metadata}, or error {detail}. */
function sse(event: string, data: unknown): string {
  return `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
}

/**
 * Opens a stream with the first provider that accepts the request and produces its first piece, falling
 * back like reason() until then; once text has gone to the client, a failure ends the stream with an
 * error event instead. The call is recorded when the stream ends, however it ends.
 */
export async function reasonStreaming(deps: ReasonDeps, plan: ReasonPlan, principal: Principal): Promise<{ ok: true; events: AsyncGenerator<string> } | ReasonFailure> {
  deps.sweeper.due();
  const call = new CallRecorder(deps, plan, principal, true);
  void call.open();
  for (const model of call.candidates()) {
    const startedAt = Date.now();
    const controller = new AbortController();
    const firstPieceTimer = setTimeout(() => controller.abort(), Math.min(deps.settings.attemptTimeoutMs, call.remainingMs()));
    let pieces: AsyncGenerator<StreamPiece> | undefined;
    try {
      pieces = await streamChatCompletion(deps.settings.providers[model.provider]!, chatRequest(plan, model), controller.signal);
      const first = await pieces.next();
      clearTimeout(firstPieceTimer);
      await call.open();
      return { ok: true, events: streamed(deps, call, plan, model, startedAt, controller, first, pieces) };
    } catch (error) {
      clearTimeout(firstPieceTimer);
      controller.abort();
      call.failed(model, startedAt, error);
    }
  }
  return failureOf(await call.record(undefined));
}

async function* streamed(
  deps: ReasonDeps,
  call: CallRecorder,
  plan: ReasonPlan,
  model: ModelRow,
  startedAt: number,
  controller: AbortController,
  first: IteratorResult<StreamPiece>,
  pieces: AsyncGenerator<StreamPiece>,
): AsyncGenerator<string> {
  const totalTimer = setTimeout(() => controller.abort(), Math.max(0, call.remainingMs()));
  let text = '';
  let usage: TokenUsage | undefined;
  let failure: ProviderError | undefined;
  let ended = false;
  try {
    yield sse('routing', { model: model.model_id, provider: model.provider, routingDecision: plan.routingDecision, callId: call.callId });
    let next = first;
    while (!next.done) {
      if (next.value.type === 'delta') {
        text += next.value.text;
        yield sse('delta', { text: next.value.text });
      } else {
        usage = next.value.usage;
      }
      next = await pieces.next();
    }
    ended = true;
  } catch (error) {
    if (!(error instanceof ProviderError)) throw error;
    failure = error;
    ended = true;
  } finally {
    clearTimeout(totalTimer);
    controller.abort();
    // The client went away (the generator is closed early) or something unexpected broke: the call is still recorded.
    if (!ended) {
      call.failed(model, startedAt, new ProviderError('network', 'the stream ended before the answer was complete'));
      await call.record(undefined).catch((error: unknown) => deps.logger.error('recording a streamed reasoning call failed', { call_id: call.callId, error }));
    }
  }
  if (failure) {
    call.failed(model, startedAt, failure);
    await call.record(undefined);
    yield sse('error', { success: false, detail: `${model.model_id} (${model.provider}) failed mid-stream: ${failure.message}`, callId: call.callId });
    return;
  }
  call.attempts.push({ model, startedAt, durationMs: Date.now() - startedAt });
  const recorded = await call.record({ model, text, ...usageOrEstimate(usage, plan.request.messages, text) });
  if (recorded.ok) yield sse('done', { success: true, data: { model: recorded.result.model, provider: recorded.result.provider, usage: recorded.result.usage }, metadata: metadataOf(recorded.result) });
}

export function metadataOf(result: ReasonResult) {
  return {
    costUsd: result.costUsd,
    durationMs: result.durationMs,
    routingDecision: result.routingDecision,
    callId: result.callId,
    usageEstimated: result.usageEstimated,
    attempts: result.attempts,
  };
}

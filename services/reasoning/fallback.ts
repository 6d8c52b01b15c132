import type { ModelRow } from '../../db/models';
import { chatCompletion, streamChatCompletion, type StreamPiece } from '../../lib/openai-compatible';
import { usageOrEstimate, type CallDeps, type CallRecorder } from './calls';
import type { ReasonFailure, ReasonResult } from './results';
import type { ReasonPlan } from './plan';

type FallbackDeps = Pick<CallDeps, 'settings'>;

/** A provider's stream that produced its first piece: the rest is read by services/reasoning/stream.ts. */
export interface OpenedStream {
  model: ModelRow;
  startedAt: number;
  controller: AbortController;
  first: IteratorResult<StreamPiece>;
  pieces: AsyncGenerator<StreamPiece>;
}

function chatRequest(plan: ReasonPlan, model: ModelRow) {
  return {
    model: model.model_id,
    messages: plan.request.messages,
    temperature: plan.request.temperature,
    max_tokens: plan.request.max_tokens,
  };
}

/** Tries the selected model, then each alternative on a failure or timeout, within the attempts and the time budget. */
export async function answerWithFallback(
  deps: FallbackDeps,
  call: CallRecorder,
): Promise<{ ok: true; result: ReasonResult } | ReasonFailure> {
  const { plan } = call;
  for (const model of call.candidates()) {
    const startedAt = Date.now();
    try {
      const signal = AbortSignal.timeout(Math.min(deps.settings.attemptTimeoutMs, call.remainingMs()));
      const answer = await chatCompletion(deps.settings.providers[model.provider]!, chatRequest(plan, model), signal);
      call.succeeded(model, startedAt);
      const { usage, estimated } = usageOrEstimate(answer.usage, plan.request.messages, answer.text);
      return await call.answered({ model, text: answer.text, usage, estimated });
    } catch (error) {
      call.failed(model, startedAt, error);
    }
  }
  return call.recordFailure();
}

/**
 * Opens a stream with the first provider that accepts the request and produces its first piece, falling
 * back like answerWithFallback until then. The call's open row is committed before the stream is returned.
 */
export async function openStreamWithFallback(
  deps: FallbackDeps,
  call: CallRecorder,
): Promise<{ ok: true; opened: OpenedStream } | ReasonFailure> {
  for (const model of call.candidates()) {
    const startedAt = Date.now();
    const controller = new AbortController();
    const firstPieceTimer = setTimeout(
      () => controller.abort(),
      Math.min(deps.settings.attemptTimeoutMs, call.remainingMs()),
    );
    try {
      const pieces = await streamChatCompletion(
        deps.settings.providers[model.provider]!,
        chatRequest(call.plan, model),
        controller.signal,
      );
      const first = await pieces.next();
      clearTimeout(firstPieceTimer);
      await call.open();
      return { ok: true, opened: { model, startedAt, controller, first, pieces } };
    } catch (error) {
      clearTimeout(firstPieceTimer);
      controller.abort();
      call.failed(model, startedAt, error);
    }
  }
  return call.recordFailure();
}

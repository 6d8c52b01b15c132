import { ProviderError, type TokenUsage } from '../../lib/openai-compatible';
import { usageOrEstimate, type CallDeps, type CallRecorder } from './calls';
import type { ReasonResult } from './results';
import type { OpenedStream } from './fallback';
import type { ModelChoice } from './plan';

/** What a streamed answer tells its client, in order: routing, a delta per piece, then done or failed. */
export type ReasoningStreamEvent =
  | { type: 'routing'; model: string; provider: string; modelChoice: ModelChoice; callId: string }
  | { type: 'delta'; text: string }
  | { type: 'failed'; model: string; provider: string; error: string; callId: string }
  | { type: 'done'; result: ReasonResult };

/**
 * Reads an opened stream to its end. Once text has gone to the client a failure no longer falls back: it ends
 * the stream with a failed event. The call is recorded when the stream ends, however it ends.
 */
export async function* streamedAnswer(
  deps: Pick<CallDeps, 'logger'>,
  call: CallRecorder,
  opened: OpenedStream,
): AsyncGenerator<ReasoningStreamEvent> {
  const { model, startedAt, controller, pieces } = opened;
  const totalTimer = setTimeout(() => controller.abort(), Math.max(0, call.remainingMs()));
  let text = '';
  let usage: TokenUsage | undefined;
  let failure: ProviderError | undefined;
  let ended = false;
  try {
    yield {
      type: 'routing',
      model: model.model_id,
      provider: model.provider,
      modelChoice: call.plan.modelChoice,
      callId: call.callId,
    };
    let next = opened.first;
    while (!next.done) {
      if (next.value.type === 'delta') {
        text += next.value.text;
        yield { type: 'delta', text: next.value.text };
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
      await call
        .record(undefined)
        .catch((error: unknown) =>
          deps.logger.error('recording a streamed reasoning call failed', { call_id: call.callId, error }),
        );
    }
  }
  if (failure) {
    call.failed(model, startedAt, failure);
    await call.record(undefined);
    yield {
      type: 'failed',
      model: model.model_id,
      provider: model.provider,
      error: failure.message,
      callId: call.callId,
    };
    return;
  }
  call.succeeded(model, startedAt);
  const recorded = await call.record({ model, text, ...usageOrEstimate(usage, call.plan.request.messages, text) });
  if (recorded.ok) yield { type: 'done', result: recorded.result };
}

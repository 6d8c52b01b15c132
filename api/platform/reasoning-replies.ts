import type { ReasonResult } from '../../services/reasoning/results';
import type { ReasoningStreamEvent } from '../../services/reasoning/stream';
import { sseFrame } from '../sse';

export function metadataOf(result: ReasonResult) {
  return {
    costUsd: result.costUsd,
    durationMs: result.durationMs,
    routingDecision: result.modelChoice,
    callId: result.callId,
    usageEstimated: result.usageEstimated,
    attempts: result.attempts,
  };
}

export function answerOf(result: ReasonResult) {
  return {
    success: true,
    data: { model: result.model, provider: result.provider, text: result.text, usage: result.usage },
    metadata: metadataOf(result),
  };
}

/** Server-sent events of a streamed answer: routing, delta {text}, then done {the answer's metadata}, or error {detail}. */
export async function* reasoningEventStream(events: AsyncIterable<ReasoningStreamEvent>): AsyncGenerator<string> {
  for await (const event of events) {
    switch (event.type) {
      case 'routing':
        yield sseFrame('routing', {
          model: event.model,
          provider: event.provider,
          routingDecision: event.modelChoice,
          callId: event.callId,
        });
        break;
      case 'delta':
        yield sseFrame('delta', { text: event.text });
        break;
      case 'failed':
        yield sseFrame('error', {
          success: false,
          detail: `${event.model} (${event.provider}) failed mid-stream: ${event.error}`,
          callId: event.callId,
        });
        break;
      case 'done': {
        const { result } = event;
        yield sseFrame('done', {
          success: true,
          data: { model: result.model, provider: result.provider, usage: result.usage },
          metadata: metadataOf(result),
        });
        break;
      }
    }
  }
}

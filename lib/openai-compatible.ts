/**
 * A client of the OpenAI-compatible chat-completions API (POST {base_url}/chat/completions), which OpenAI,
 * OpenRouter, Ollama and vLLM all serve: one answer as JSON, or a stream of server-sent events. Each call is a
 * client span with the GenAI semantic conventions' attributes (a no-op unless the process traces).
 */
import { SpanKind, SpanStatusCode, trace, type Span } from '@opentelemetry/api';

export interface ProviderEndpoint {
  /** Up to and including the version segment, e.g. https://api.openai.com/v1 or http://127.0.0.1:11434/v1. */
  baseUrl: string;
  apiKey?: string | undefined;
  /** The provider's name in traces (gen_ai.system); `openai`, the API this client speaks, when unset. */
  system?: string | undefined;
}

export interface ChatMessage {
  role: string;
  content: string;
}

export interface ChatRequest {
  model: string;
  messages: readonly ChatMessage[];
  temperature?: number | undefined;
  max_tokens?: number | undefined;
}

export interface TokenUsage {
  prompt_tokens: number;
  completion_tokens: number;
}

export interface ChatAnswer {
  text: string;
  /** Absent when the provider reported none. */
  usage: TokenUsage | undefined;
}

export type StreamPiece = { type: 'delta'; text: string } | { type: 'usage'; usage: TokenUsage };

export type ProviderFailureKind = 'timeout' | 'network' | 'http' | 'malformed';

export class ProviderError extends Error {
  override name = 'ProviderError';
  constructor(
    readonly kind: ProviderFailureKind,
    message: string,
    readonly status?: number,
  ) {
    super(message);
  }
}

/** Largest answer read from a provider; an answer past it is a failure rather than a process out of memory. */
const MAX_ANSWER_BYTES = 8 * 1024 * 1024;

function endpointUrl(endpoint: ProviderEndpoint): string {
  return `${endpoint.baseUrl.replace(/\/+$/, '')}/chat/completions`;
}

async function post(endpoint: ProviderEndpoint, body: Record<string, unknown>, signal: AbortSignal): Promise<Response> {
  let response: Response;
  try {
    response = await fetch(endpointUrl(endpoint), {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: body.stream ? 'text/event-stream' : 'application/json',
        ...(endpoint.apiKey ? { authorization: `Bearer ${endpoint.apiKey}` } : {}),
      },
      body: JSON.stringify(body),
      signal,
    });
  } catch (error) {
    throw failureOf(error, signal);
  }
  if (!response.ok) {
    const detail = await readLimited(response, 512, signal).catch(() => '');
    throw new ProviderError(
      'http',
      `the provider answered ${response.status}${detail ? `: ${detail.replace(/\s+/g, ' ').slice(0, 200)}` : ''}`,
      response.status,
    );
  }
  return response;
}

function failureOf(error: unknown, signal: AbortSignal): ProviderError {
  if (error instanceof ProviderError) return error;
  if (signal.aborted) return new ProviderError('timeout', 'the provider did not answer in time');
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  return new ProviderError(
    'network',
    `the provider could not be reached (${cause?.code ?? cause?.message ?? (error as Error).message})`,
  );
}

async function readLimited(response: Response, limit: number, signal: AbortSignal): Promise<string> {
  if (!response.body) return '';
  const decoder = new TextDecoder();
  let text = '';
  let bytes = 0;
  try {
    for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
      bytes += chunk.byteLength;
      if (bytes > limit) {
        await response.body.cancel().catch(() => undefined);
        if (limit < MAX_ANSWER_BYTES) return text;
        throw new ProviderError('malformed', `the answer is larger than ${limit} bytes`);
      }
      text += decoder.decode(chunk, { stream: true });
    }
  } catch (error) {
    throw failureOf(error, signal);
  }
  return text + decoder.decode();
}

function usageOf(value: unknown): TokenUsage | undefined {
  const usage = value as { prompt_tokens?: unknown; completion_tokens?: unknown } | null | undefined;
  if (typeof usage?.prompt_tokens !== 'number' || typeof usage.completion_tokens !== 'number') return undefined;
  if (
    !Number.isFinite(usage.prompt_tokens) ||
    !Number.isFinite(usage.completion_tokens) ||
    usage.prompt_tokens < 0 ||
    usage.completion_tokens < 0
  )
    return undefined;
  return { prompt_tokens: Math.round(usage.prompt_tokens), completion_tokens: Math.round(usage.completion_tokens) };
}

function requestBody(request: ChatRequest, stream: boolean): Record<string, unknown> {
  return {
    model: request.model,
    messages: request.messages,
    ...(request.temperature !== undefined ? { temperature: request.temperature } : {}),
    ...(request.max_tokens !== undefined ? { max_tokens: request.max_tokens } : {}),
    ...(stream ? { stream: true, stream_options: { include_usage: true } } : {}),
  };
}

const tracer = trace.getTracer('handoff-openai-compatible');

function startChatSpan(endpoint: ProviderEndpoint, request: ChatRequest): Span {
  return tracer.startSpan(`chat ${request.model}`, {
    kind: SpanKind.CLIENT,
    attributes: {
      'gen_ai.operation.name': 'chat',
      'gen_ai.system': endpoint.system ?? 'openai',
      'gen_ai.request.model': request.model,
      ...(request.temperature !== undefined ? { 'gen_ai.request.temperature': request.temperature } : {}),
      ...(request.max_tokens !== undefined ? { 'gen_ai.request.max_tokens': request.max_tokens } : {}),
    },
  });
}

function endChatSpan(span: Span, outcome: { usage?: TokenUsage | undefined; error?: unknown }): void {
  if (outcome.usage)
    span.setAttributes({
      'gen_ai.usage.input_tokens': outcome.usage.prompt_tokens,
      'gen_ai.usage.output_tokens': outcome.usage.completion_tokens,
    });
  if (outcome.error !== undefined) {
    span.setAttribute('error.type', outcome.error instanceof ProviderError ? outcome.error.kind : 'unknown');
    span.setStatus({
      code: SpanStatusCode.ERROR,
      message: outcome.error instanceof Error ? outcome.error.message : 'failed',
    });
  }
  span.end();
}

export async function chatCompletion(
  endpoint: ProviderEndpoint,
  request: ChatRequest,
  signal: AbortSignal,
): Promise<ChatAnswer> {
  const span = startChatSpan(endpoint, request);
  try {
    const answer = await completeChat(endpoint, request, signal);
    endChatSpan(span, { usage: answer.usage });
    return answer;
  } catch (error) {
    endChatSpan(span, { error });
    throw error;
  }
}

async function completeChat(
  endpoint: ProviderEndpoint,
  request: ChatRequest,
  signal: AbortSignal,
): Promise<ChatAnswer> {
  const response = await post(endpoint, requestBody(request, false), signal);
  const text = await readLimited(response, MAX_ANSWER_BYTES, signal);
  let parsed: { choices?: Array<{ message?: { content?: unknown } }>; usage?: unknown };
  try {
    parsed = JSON.parse(text) as typeof parsed;
  } catch {
    throw new ProviderError('malformed', 'the answer is not JSON');
  }
  const content = parsed.choices?.[0]?.message?.content;
  if (typeof content !== 'string') throw new ProviderError('malformed', 'the answer has no choices[0].message.content');
  return { text: content, usage: usageOf(parsed.usage) };
}

/** The data of each server-sent event in a text stream (fields other than data are not used by this API). */
export async function* serverSentEvents(chunks: AsyncIterable<string>): AsyncGenerator<string> {
  let buffer = '';
  const flush = function* (block: string) {
    const data = block
      .split(/\r\n|\r|\n/)
      .filter((line) => line.startsWith('data:'))
      .map((line) => line.slice(5).replace(/^ /, ''));
    if (data.length > 0) yield data.join('\n');
  };
  for await (const chunk of chunks) {
    buffer += chunk;
    let boundary: RegExpExecArray | null;
    while ((boundary = /\r\n\r\n|\n\n|\r\r/.exec(buffer))) {
      yield* flush(buffer.slice(0, boundary.index));
      buffer = buffer.slice(boundary.index + boundary[0].length);
    }
  }
  if (buffer.trim()) yield* flush(buffer);
}

async function* decoded(response: Response, signal: AbortSignal): AsyncGenerator<string> {
  if (!response.body) return;
  const decoder = new TextDecoder();
  let bytes = 0;
  try {
    for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
      bytes += chunk.byteLength;
      if (bytes > MAX_ANSWER_BYTES)
        throw new ProviderError('malformed', `the stream is larger than ${MAX_ANSWER_BYTES} bytes`);
      yield decoder.decode(chunk, { stream: true });
    }
  } catch (error) {
    throw failureOf(error, signal);
  }
}

/**
 * The answer as it is generated: text deltas, and the usage when the provider reports it (stream_options
 * include_usage). Resolves once the provider has accepted the request, so a refusal can still fall back.
 */
export async function streamChatCompletion(
  endpoint: ProviderEndpoint,
  request: ChatRequest,
  signal: AbortSignal,
): Promise<AsyncGenerator<StreamPiece>> {
  const span = startChatSpan(endpoint, request);
  let response: Response;
  try {
    response = await post(endpoint, requestBody(request, true), signal);
  } catch (error) {
    endChatSpan(span, { error });
    throw error;
  }
  const stream = (async function* pieces(): AsyncGenerator<StreamPiece> {
    for await (const data of serverSentEvents(decoded(response, signal))) {
      if (data === '[DONE]') return;
      let event: { choices?: Array<{ delta?: { content?: unknown } }>; usage?: unknown; error?: { message?: unknown } };
      try {
        event = JSON.parse(data) as typeof event;
      } catch {
        throw new ProviderError('malformed', 'a streamed event is not JSON');
      }
      if (event.error)
        throw new ProviderError(
          'http',
          `the provider reported an error mid-stream: ${typeof event.error.message === 'string' ? event.error.message : 'unknown'}`,
        );
      const content = event.choices?.[0]?.delta?.content;
      if (typeof content === 'string' && content.length > 0) yield { type: 'delta', text: content };
      const usage = usageOf(event.usage);
      if (usage) yield { type: 'usage', usage };
    }
  })();
  return tracedStream(span, stream);
}

/** The span lasts until the stream ends, with the usage of its last event. */
async function* tracedStream(span: Span, stream: AsyncGenerator<StreamPiece>): AsyncGenerator<StreamPiece> {
  const outcome: { usage?: TokenUsage; error?: unknown } = {};
  try {
    for await (const piece of stream) {
      if (piece.type === 'usage') outcome.usage = piece.usage;
      yield piece;
    }
  } catch (error) {
    outcome.error = error;
    throw error;
  } finally {
    endChatSpan(span, outcome);
  }
}

import http from 'node:http';
import https from 'node:https';
import type { OutboundGuard, UrlCheck } from './url-guard';

export interface PostOutcome {
  /** The receiver's status, when it answered. */
  status?: number;
  /** Seconds the receiver asked us to wait (Retry-After as seconds or an HTTP date). */
  retryAfterSeconds?: number;
  /** Why no status came back: refused destination, DNS, connection, timeout. */
  error?: string;
  /** The destination was refused by the outbound policy; retrying will not help. */
  refused?: boolean;
  /** The first KiB of the answer (or responseLimitBytes of it), for the delivery log. */
  responseSnippet?: string;
  /** The answer was longer than what was kept. */
  responseTruncated?: boolean;
  durationMs: number;
}

const SNIPPET_BYTES = 1024;

/** Retry-After (RFC 9110 10.2.3): delay-seconds or an HTTP-date. */
export function parseRetryAfter(value: string | undefined, nowMs = Date.now()): number | undefined {
  if (!value) return undefined;
  if (/^\d+$/.test(value.trim())) return Number(value.trim());
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, Math.ceil((at - nowMs) / 1000));
}

/** The URL to call, or why the outbound policy refuses it before any lookup (a malformed URL, a private literal). */
function checkedTarget(url: string, guard: OutboundGuard): UrlCheck {
  const parsed = guard.parse(url);
  if (!parsed.ok) return parsed;
  const literal = guard.literalCheck(parsed.url);
  return literal && !literal.ok ? literal : parsed;
}

type Finish = (outcome: Omit<PostOutcome, 'durationMs'>) => void;

/** Keeps the first `limit` bytes of the answer and finishes with them, its status and its Retry-After. */
function readAnswer(response: http.IncomingMessage, limit: number, finish: Finish): void {
  const chunks: Buffer[] = [];
  let kept = 0;
  response.on('data', (chunk: Buffer) => {
    if (kept < limit) chunks.push(chunk.subarray(0, limit - kept));
    kept += chunk.length;
  });
  response.on('end', () =>
    finish({
      status: response.statusCode ?? 0,
      retryAfterSeconds: parseRetryAfter(response.headers['retry-after']),
      responseSnippet: Buffer.concat(chunks).toString('utf8'),
      ...(kept > limit ? { responseTruncated: true } : {}),
    }),
  );
  response.on('error', (error) => finish({ status: response.statusCode ?? 0, error: error.message }));
}

/**
 * POSTs a JSON body exactly as given (signatures cover these bytes) and reports what happened without
 * throwing: the caller decides about retries. Redirects are not followed (a 3xx is reported as is), so a
 * receiver cannot bounce us to a destination the guard would refuse.
 */
export function postJson(
  url: string,
  rawBody: string,
  options: {
    headers?: Record<string, string>;
    timeoutMs: number;
    guard: OutboundGuard;
    /** Stops the call (the socket is destroyed), e.g. when the activity making it is cancelled. */
    signal?: AbortSignal;
    /** How much of the answer to keep; agent results need more than a delivery log's snippet. */
    responseLimitBytes?: number;
  },
): Promise<PostOutcome> {
  const started = process.hrtime.bigint();
  const elapsed = () => Number((process.hrtime.bigint() - started) / 1_000_000n);
  const checked = checkedTarget(url, options.guard);
  if (!checked.ok) return Promise.resolve({ error: `URL ${checked.reason}`, refused: true, durationMs: 0 });

  const target = checked.url;
  const transport = target.protocol === 'https:' ? https : http;
  const limit = options.responseLimitBytes ?? SNIPPET_BYTES;
  if (options.signal?.aborted) return Promise.resolve({ error: 'aborted before it was sent', durationMs: 0 });
  return new Promise((resolve) => {
    let settled = false;
    const finish: Finish = (outcome) => {
      if (settled) return;
      settled = true;
      clearTimeout(deadline);
      resolve({ ...outcome, durationMs: elapsed() });
    };
    const request = transport.request(
      target,
      {
        method: 'POST',
        lookup: options.guard.lookup,
        headers: {
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(rawBody),
          'user-agent': 'Handoff-Webhooks/1.0',
          ...options.headers,
        },
      },
      (response) => readAnswer(response, limit, finish),
    );
    const deadline = setTimeout(() => {
      request.destroy(new Error(`no answer within ${options.timeoutMs} ms`));
    }, options.timeoutMs);
    request.on('error', (error: Error & { code?: string }) =>
      finish({ error: error.message, ...(error.code === 'EOUTBOUNDREFUSED' ? { refused: true } : {}) }),
    );
    options.signal?.addEventListener('abort', () => request.destroy(new Error('aborted')), { once: true });
    request.end(rawBody);
  });
}

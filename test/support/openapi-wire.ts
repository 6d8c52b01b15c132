import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { jsonText, shownText } from './openapi-arbitraries';
import type { Operation } from './openapi-document';
import { paramText, RawParam, type AuthChoice, type HarvestPool, type RequestPlan } from './openapi-requests';

/** The request as it goes on the wire. */
export interface WireRequest {
  method: string;
  /** Path and query, percent-encoded. */
  target: string;
  headers: Record<string, string>;
  body: Buffer | undefined;
}

export interface WireContext {
  /** The Authorization header value for each choice; undefined sends none. */
  authorization: Record<AuthChoice, string | undefined>;
  pool: HarvestPool;
}

/** Fills in a plan (credentials, harvested ids, keys) and encodes it. Null leaves a query or header parameter out: form style cannot say null. */
export function wireRequest(operation: Operation, plan: RequestPlan, context: WireContext): WireRequest {
  const resolve = (value: unknown) => context.pool.resolve(value);
  const target = operation.path.replace(/\{([^}]+)\}/g, (_, name: string) => urlText(resolve(plan.path[name])));
  const query = Object.entries(plan.query).flatMap(([name, value]) =>
    (Array.isArray(value) ? value : [value])
      .map(resolve)
      .filter((item) => item !== undefined && item !== null)
      .map((item) => `${encodeComponent(name)}=${urlText(item)}`),
  );
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(plan.headers)) {
    const resolved = resolve(value);
    if (resolved !== undefined && resolved !== null) headers[name] = headerText(paramText(resolved));
  }
  const authorization = plan.auth === 'public' ? undefined : context.authorization[plan.auth];
  if (authorization) headers.authorization = authorization;
  let body: Buffer | undefined;
  if (plan.body.kind === 'json') {
    body = Buffer.from(jsonText(plan.body.value), 'utf8');
    headers['content-type'] = 'application/json';
  } else if (plan.body.kind === 'text') {
    body = Buffer.from(plan.body.text, 'utf8');
    if (plan.body.contentType) headers['content-type'] = plan.body.contentType;
  }
  return {
    method: operation.method,
    target: query.length > 0 ? `${target}?${query.join('&')}` : target,
    headers,
    body,
  };
}

function urlText(value: unknown): string {
  return value instanceof RawParam ? value.text : encodeComponent(paramText(value));
}

/** Percent-encodes UTF-16 as WTF-8, so that a lone surrogate reaches the server as the bytes that would carry it. */
function encodeComponent(text: string): string {
  let encoded = '';
  for (const char of text) {
    const code = char.charCodeAt(0);
    if (char.length === 1 && code >= 0xd800 && code <= 0xdfff) {
      encoded += [0xe0 | (code >> 12), 0x80 | ((code >> 6) & 0x3f), 0x80 | (code & 0x3f)]
        .map((byte) => `%${byte.toString(16).toUpperCase()}`)
        .join('');
    } else {
      encoded += encodeURIComponent(char);
    }
  }
  return encoded;
}

/** HTTP/1.1 header values are bytes: UTF-8 written out as Latin-1, without the control characters HTTP forbids. */
function headerText(text: string): string {
  return Buffer.from(text, 'utf8')
    .toString('latin1')
    .replace(/[^\t\x20-\x7e\x80-\xff]/g, '?');
}

export interface Answer {
  status: number;
  headers: IncomingHttpHeaders;
  text: string;
  /** The parsed body when the content type is JSON. */
  json: unknown;
}

/** Sends the request on a connection of its own and reads the whole answer; rejects if none comes within timeoutMs. */
export function send(baseUrl: string, wire: WireRequest, timeoutMs: number): Promise<Answer> {
  const url = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const outgoing = httpRequest(
      {
        host: url.hostname,
        port: url.port,
        method: wire.method,
        path: wire.target,
        headers: { ...wire.headers, ...(wire.body ? { 'content-length': String(wire.body.length) } : {}) },
        agent: false,
        signal: AbortSignal.timeout(timeoutMs),
      },
      (incoming) => {
        const chunks: Buffer[] = [];
        incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
        incoming.on('error', reject);
        incoming.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          resolve({
            status: incoming.statusCode ?? 0,
            headers: incoming.headers,
            text,
            json: parsedJson(incoming.headers['content-type'], text),
          });
        });
      },
    );
    outgoing.on('error', (error) =>
      reject(
        error.name === 'AbortError' || error.name === 'TimeoutError'
          ? new Error(`no answer within ${timeoutMs} ms`)
          : error,
      ),
    );
    outgoing.end(wire.body);
  });
}

function parsedJson(contentType: string | undefined, text: string): unknown {
  if (!/[/+]json\b/.test(contentType ?? '') || !text) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** Past this, a shown request is cut: the runs it is made of are already shortened. */
const SHOWN_LIMIT = 4_000;

/** The wire request as a developer would retype it. */
export function shownWire(wire: WireRequest): string {
  const headers = Object.entries(wire.headers).map(
    ([name, value]) => `${name}: ${name === 'authorization' ? `${value.slice(0, 16)}…` : shownText(value)}`,
  );
  const shown = [
    `${wire.method} ${shownText(wire.target)}`,
    ...headers,
    ...(wire.body ? ['', shownText(wire.body.toString('utf8'))] : []),
  ].join('\n');
  return shown.length > SHOWN_LIMIT
    ? `${shown.slice(0, SHOWN_LIMIT)}… (${shown.length - SHOWN_LIMIT} more characters)`
    : shown;
}

export interface CallOptions {
  /** Sent as `Authorization: Bearer <token>`. */
  token?: string;
  /** Serialized as JSON with Content-Type application/json. */
  json?: unknown;
  /** Sent as is; set the content type in headers. */
  raw?: string;
  headers?: Record<string, string>;
}

export interface CallResult {
  status: number;
  headers: Headers;
  /** The parsed JSON body, or undefined when the body is empty or not JSON. */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read arbitrary response shapes
  body: any;
  text: string;
}

/** One HTTP request the way a client makes it, with the answer read completely. */
export async function call(
  baseUrl: string,
  method: string,
  path: string,
  options: CallOptions = {},
): Promise<CallResult> {
  const headers: Record<string, string> = {
    ...(options.token ? { authorization: `Bearer ${options.token}` } : {}),
    ...(options.json !== undefined ? { 'content-type': 'application/json' } : {}),
    ...options.headers,
  };
  const response = await fetch(`${baseUrl}${path}`, {
    method,
    headers,
    body: options.json !== undefined ? JSON.stringify(options.json) : options.raw,
  });
  const text = await response.text();
  const isJson = /[/+]json\b/.test(response.headers.get('content-type') ?? '');
  return {
    status: response.status,
    headers: response.headers,
    body: isJson && text ? JSON.parse(text) : undefined,
    text,
  };
}

/** A client bound to one base URL and, optionally, one bearer token. */
export function client(baseUrl: string, token?: string) {
  return (method: string, path: string, options: CallOptions = {}) =>
    call(baseUrl, method, path, { ...(token ? { token } : {}), ...options });
}

/** Asserts an RFC 9457 problem of the given code, as rendered by the one problem middleware. */
export function expectProblem(reply: CallResult, status: number, code: string): void {
  expect({ status: reply.status, contentType: reply.headers.get('content-type') }).toEqual({
    status,
    contentType: expect.stringMatching(/^application\/problem\+json/),
  });
  expect(reply.body).toMatchObject({
    type: `/problems/${code}`,
    title: expect.any(String),
    status,
    instance: expect.stringMatching(/^\//),
    request_id: reply.headers.get('x-request-id'),
  });
}

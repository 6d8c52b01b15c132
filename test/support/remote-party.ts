import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedRequest {
  path: string;
  headers: IncomingHttpHeaders;
  /** The raw body as it arrived (signatures cover these bytes). */
  raw: string;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read arbitrary bodies
  body: any;
  /** Set when the caller hung up before an answer was sent. */
  aborted: boolean;
}

export type Answer = { status: number; body?: unknown; headers?: Record<string, string> };
export type Behaviour = (request: ReceivedRequest, index: number) => Promise<Answer> | Answer;

export interface RemoteParty {
  url: string;
  requests: ReceivedRequest[];
  /** What the next requests get; requests are numbered from 0 in arrival order. */
  behave(behaviour: Behaviour): void;
  close(): Promise<void>;
}

/**
 * A real HTTP server on 127.0.0.1 that plays a party outside the service (an agent's endpoint, a callback
 * receiver): it records every request and answers as the test says.
 */
export async function startRemoteParty(initial: Behaviour = () => ({ status: 200, body: {} })): Promise<RemoteParty> {
  const requests: ReceivedRequest[] = [];
  let behaviour = initial;
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      let body: unknown;
      try {
        body = raw ? JSON.parse(raw) : undefined;
      } catch {
        body = undefined;
      }
      const request: ReceivedRequest = { path: req.url ?? '/', headers: req.headers, raw, body, aborted: false };
      const index = requests.push(request) - 1;
      res.on('close', () => {
        if (!res.writableEnded) request.aborted = true;
      });
      Promise.resolve(behaviour(request, index))
        .then((answer) => {
          if (res.destroyed) return;
          res.writeHead(answer.status, { 'content-type': 'application/json', ...answer.headers });
          res.end(answer.body === undefined ? '' : JSON.stringify(answer.body));
        })
        .catch(() => res.destroy());
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    behave(next) {
      behaviour = next;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A promise and the function that settles it, for a test to hold a remote party's answer. */
export function gate(): { wait: Promise<void>; open: () => void } {
  let open!: () => void;
  const wait = new Promise<void>((resolve) => (open = resolve));
  return { wait, open };
}

/** Stack settings for tests whose agents and receivers are local: loopback allowed, retries quick. */
export const LOCAL_PARTIES_ENV = {
  OUTBOUND_PRIVATE_ALLOWLIST: '127.0.0.1',
  AGENT_RETRY_INITIAL_INTERVAL_MS: '200',
  AGENT_RETRY_MAX_INTERVAL_SECONDS: '1',
  CALLBACK_RETRY_INITIAL_INTERVAL_MS: '200',
  CALLBACK_RETRY_MAX_INTERVAL_SECONDS: '1',
  AGENT_HEARTBEAT_TIMEOUT_SECONDS: '2',
};

import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { verifySignature } from '../../lib/outbound/signature';

export interface ReceivedDelivery {
  path: string;
  receivedAt: number;
  headers: IncomingHttpHeaders;
  rawBody: string;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read the delivered JSON as a subscriber would
  body: any;
  /** Whether the signature verified against the secret the endpoint knew when the delivery arrived. */
  verified: boolean;
  /** How many v1 signatures the header carried (two during a rotation overlap). */
  signatures: number;
  /** What the endpoint answered. */
  status: number;
}

export interface Reply {
  status: number;
  headers?: Record<string, string>;
  body?: string;
}

/** Decides an endpoint's answer; by default 200 when the signature verifies, 400 when it does not. */
export type Responder = (delivery: Omit<ReceivedDelivery, 'status'>, countOnThisPath: number) => Reply;

const verifiedOr400: Responder = (delivery) =>
  delivery.verified ? { status: 200, body: 'ok' } : { status: 400, body: 'bad signature' };

/**
 * A real HTTP server playing webhook subscribers, one endpoint per path: each verifies the signature
 * with the secret it was given, the way a subscriber's code does, and answers as its responder says.
 */
export async function startWebhookReceiver() {
  const secrets = new Map<string, string>();
  const responders = new Map<string, Responder>();
  const deliveries: ReceivedDelivery[] = [];
  const waiters = new Set<() => void>();

  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const path = (req.url ?? '/').split('?')[0]!;
      const rawBody = Buffer.concat(chunks).toString('utf8');
      const header = req.headers['x-svc-signature'] as string | undefined;
      const secret = secrets.get(path);
      const received = {
        path,
        receivedAt: Date.now(),
        headers: req.headers,
        rawBody,
        body: rawBody ? (JSON.parse(rawBody) as unknown) : undefined,
        verified: secret !== undefined && verifySignature(header, rawBody, secret).ok,
        signatures: (header ?? '').split(',').filter((part) => part.startsWith('v1=')).length,
      };
      const count = deliveries.filter((delivery) => delivery.path === path).length + 1;
      const reply = (responders.get(path) ?? verifiedOr400)(received, count);
      deliveries.push({ ...received, status: reply.status });
      res.writeHead(reply.status, { 'content-type': 'text/plain', ...reply.headers });
      res.end(reply.body ?? '');
      for (const wake of waiters) wake();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    deliveries,
    url: (path: string) => `http://127.0.0.1:${port}${path}`,
    /** The secret the endpoint at `path` verifies with (what a subscriber stores after creating it). */
    knowSecret(path: string, secret: string) {
      secrets.set(path, secret);
    },
    respond(path: string, responder: Responder) {
      responders.set(path, responder);
    },
    on(path: string) {
      return deliveries.filter((delivery) => delivery.path === path);
    },
    /** Resolves once `done` holds for what has arrived, or fails after the timeout showing what did. */
    waitFor(done: (all: ReceivedDelivery[]) => boolean, timeoutMs = 20_000): Promise<void> {
      return new Promise((resolve, reject) => {
        const check = () => {
          if (!done(deliveries)) return;
          clearTimeout(timer);
          waiters.delete(check);
          resolve();
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(
            new Error(
              `webhook receiver: condition not met within ${timeoutMs} ms; received ${JSON.stringify(deliveries.map((d) => [d.path, d.body?.event, d.status]))}`,
            ),
          );
        }, timeoutMs);
        waiters.add(check);
        check();
      });
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        // Our client keeps connections alive; close() alone would wait for them to idle out.
        server.closeAllConnections();
      }),
  };
}

export type WebhookReceiver = Awaited<ReturnType<typeof startWebhookReceiver>>;

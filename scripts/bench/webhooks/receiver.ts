import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import { verifySignature } from '../../../lib/outbound/signature';

/** Three subscriber endpoints on one local server; each delivery is kept once per endpoint and delivery id. */
export async function startReceiver(deliveryTimeoutMs: number) {
  const secrets = new Map<string, string>();
  /** When each (endpoint, delivery id) first arrived, and the subject its event came from. */
  const arrivals = new Map<string, { at: number; subject: string }>();
  let duplicates = 0;
  let badSignatures = 0;
  let onArrival = () => {};
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const at = performance.now();
      const body = Buffer.concat(chunks).toString('utf8');
      const endpoint = req.url ?? '/';
      const secret = secrets.get(endpoint);
      const verified =
        secret !== undefined && verifySignature(req.headers['x-svc-signature'] as string, body, secret).ok;
      if (!verified) {
        badSignatures += 1;
        res.writeHead(400).end();
        return;
      }
      const key = `${endpoint} ${req.headers['x-svc-delivery-id'] as string}`;
      if (arrivals.has(key)) duplicates += 1;
      else arrivals.set(key, { at, subject: (JSON.parse(body) as { data: { routing_id: string } }).data.routing_id });
      res.writeHead(204).end();
      onArrival();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: (endpoint: string) => `http://127.0.0.1:${port}${endpoint}`,
    knowSecret: (endpoint: string, secret: string) => secrets.set(endpoint, secret),
    arrivals,
    counts: () => ({ duplicates, badSignatures }),
    /** Resolves once `count` distinct deliveries have arrived. */
    waitForArrivals(count: number): Promise<void> {
      return new Promise((resolve, reject) => {
        const timer = setTimeout(
          () =>
            reject(
              new Error(`only ${arrivals.size} of ${count} deliveries arrived within ${deliveryTimeoutMs / 1000} s`),
            ),
          deliveryTimeoutMs,
        );
        onArrival = () => {
          if (arrivals.size < count) return;
          clearTimeout(timer);
          resolve();
        };
        onArrival();
      });
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

import { createServer, type Server } from 'node:http';
import { collectDefaultMetrics, Gauge, Histogram, Registry, type CollectFunction } from 'prom-client';
import type { Logger } from './logger';

/** Prometheus's text exposition format, as prom-client writes it. */
export const METRICS_CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8';

/** Seconds; from a fast GET (a few ms) to a request that runs into its deadline (15 s by default). */
export const HTTP_DURATION_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

/** One registry per process, with the Node runtime's own metrics (heap, event-loop lag, GC, CPU). */
export function createMetricsRegistry(): Registry {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  return registry;
}

export interface HttpMetrics {
  /** Records one answered request; route is the route template (`/v1/orch/routing/{routing_id}`), never the raw path. */
  observe(request: { method: string; route: string; status: number; seconds: number }): void;
}

export function createHttpMetrics(registry: Registry): HttpMetrics {
  const duration = new Histogram({
    name: 'http_server_request_duration_seconds',
    help: 'Duration of HTTP requests the API answered, by method, route template and status code',
    labelNames: ['method', 'route', 'status'] as const,
    buckets: HTTP_DURATION_BUCKETS,
    registers: [registry],
  });
  return {
    observe: ({ method, route, status, seconds }) =>
      duration.observe({ method, route, status: String(status) }, seconds),
  };
}

/**
 * A gauge whose value is read when Prometheus scrapes (a count in Postgres, the size of an in-memory set)
 * rather than kept up to date on every change. read() returns one value per label set.
 */
export function gaugeAtScrape<Label extends string>(
  registry: Registry,
  definition: { name: string; help: string; labelNames?: readonly Label[] },
  read: () =>
    | Promise<Array<{ labels?: Partial<Record<Label, string>>; value: number }>>
    | Array<{ labels?: Partial<Record<Label, string>>; value: number }>,
): Gauge<Label> {
  const collect: CollectFunction<Gauge<Label>> = async function (this: Gauge<Label>) {
    this.reset();
    for (const { labels, value } of await read()) {
      if (labels) this.set(labels, value);
      else this.set(value);
    }
  };
  return new Gauge<Label>({
    name: definition.name,
    help: definition.help,
    labelNames: definition.labelNames ?? [],
    registers: [registry],
    collect,
  });
}

/** Where a scrape's text comes from: a prom-client registry, or another exporter's text (the Temporal SDK's). */
export type MetricsSource = Registry | (() => Promise<string>);

/** The text of every source, one after another; a source that fails is left out and logged, the others still answer. */
export async function scrapeAll(sources: readonly MetricsSource[], logger: Logger): Promise<string> {
  const texts = await Promise.all(
    sources.map(async (source) => {
      try {
        return source instanceof Registry ? await source.metrics() : await source();
      } catch (error) {
        logger.warn('a metrics source failed to answer', { error });
        return '';
      }
    }),
  );
  return texts.filter((text) => text.length > 0).join('\n');
}

/** The text another Prometheus exporter serves (its /metrics), fetched at scrape time. */
export function remoteMetrics(url: string, timeoutMs = 2000): () => Promise<string> {
  return async () => {
    const response = await fetch(url, { signal: AbortSignal.timeout(timeoutMs) });
    if (!response.ok) throw new Error(`${url} answered ${response.status}`);
    return response.text();
  };
}

/**
 * The metrics endpoint on a port of its own, apart from the API: GET /metrics, nothing else. Operators reach
 * it from inside the network, and the API's rate limits and auth never stand between Prometheus and it.
 */
export function startMetricsServer(options: {
  host: string;
  port: number;
  sources: readonly MetricsSource[];
  logger: Logger;
}): Promise<Server> {
  const server = createServer((req, res) => {
    if (req.method !== 'GET' || (req.url ?? '').split('?')[0] !== '/metrics') {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('GET /metrics\n');
      return;
    }
    scrapeAll(options.sources, options.logger).then(
      (text) => res.writeHead(200, { 'content-type': METRICS_CONTENT_TYPE }).end(text),
      (error: unknown) => {
        options.logger.error('metrics scrape failed', { error });
        res.writeHead(500, { 'content-type': 'text/plain' }).end('scrape failed\n');
      },
    );
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => {
      options.logger.info('metrics listening', { host: options.host, port: options.port });
      resolve(server);
    });
  });
}

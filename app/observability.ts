import type { Server } from 'node:http';
import type { Registry } from 'prom-client';
import type { Logger } from '../lib/logger';
import { createMetricsRegistry, remoteMetrics, startMetricsServer, type MetricsSource } from '../lib/metrics';
import { otlpTracesUrlOf, startTracing, type Tracing } from '../lib/tracing';
import { registerDomainMetrics } from '../services/observability/metrics';
import type { Config } from './config';

/** The process's metrics registry when METRICS_PORT asks for metrics, with the domain metrics of the roles it runs. */
export function metricsRegistryOf(config: Config, roles: { api: boolean; worker: boolean }): Registry | undefined {
  if (config.METRICS_PORT === undefined) return undefined;
  const registry = createMetricsRegistry();
  registerDomainMetrics(registry, roles);
  return registry;
}

/** Tracing to the OTLP collector the standard OTEL_* variables name; undefined (off) unless they ask for it. */
export function tracingOf(config: Config, defaultServiceName: string): Tracing | undefined {
  const otlpTracesUrl = otlpTracesUrlOf({
    exporter: config.OTEL_TRACES_EXPORTER,
    endpoint: config.OTEL_EXPORTER_OTLP_ENDPOINT,
    tracesEndpoint: config.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT,
  });
  return otlpTracesUrl
    ? startTracing({ serviceName: config.OTEL_SERVICE_NAME ?? defaultServiceName, destination: { otlpTracesUrl } })
    : undefined;
}

/**
 * GET /metrics on METRICS_HOST:METRICS_PORT: the registry, and in a worker process the Temporal SDK's own
 * metrics (TEMPORAL_METRICS_BIND_ADDRESS) fetched at the same scrape, so one scrape target covers the process.
 */
export async function serveMetrics(
  config: Config,
  registry: Registry | undefined,
  options: { logger: Logger; worker: boolean },
): Promise<Server | undefined> {
  if (!registry || config.METRICS_PORT === undefined) return undefined;
  const sources: MetricsSource[] = [registry];
  if (options.worker && config.TEMPORAL_METRICS_BIND_ADDRESS)
    sources.push(
      remoteMetrics(`http://${config.TEMPORAL_METRICS_BIND_ADDRESS.replace(/^0\.0\.0\.0:/, '127.0.0.1:')}/metrics`),
    );
  return startMetricsServer({ host: config.METRICS_HOST, port: config.METRICS_PORT, sources, logger: options.logger });
}

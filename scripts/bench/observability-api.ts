/**
 * The API process of the observability benchmark (observability.ts): buildApp against the benchmark's database,
 * with metrics, tracing or neither as OBSERVABILITY_VARIANT says, and no Temporal server (the GET it serves
 * never calls one). Traced spans go to an exporter that drops them, batched as the OTLP exporter is, so what is
 * measured is what tracing costs this process, not a collector.
 */
import { ExportResultCode } from '@opentelemetry/core';
import type { SpanExporter } from '@opentelemetry/sdk-trace-base';
import { Client } from '@temporalio/client';
import { buildApp } from '../../api/app';
import { loadConfig } from '../../app/config';
import { createAppDeps } from '../../app/deps';
import { metricsRegistryOf } from '../../app/observability';
import { createDb } from '../../db/connection';
import { listen } from '../../lib/http-server';
import { createLogger } from '../../lib/logger';
import { startTracing } from '../../lib/tracing';

export const VARIANTS = ['off', 'metrics', 'tracing', 'both'] as const;
export type Variant = (typeof VARIANTS)[number];

const droppingExporter: SpanExporter = {
  export: (_spans, done) => done({ code: ExportResultCode.SUCCESS }),
  shutdown: () => Promise.resolve(),
};

async function main(): Promise<void> {
  const variant = process.env.OBSERVABILITY_VARIANT as Variant;
  if (!VARIANTS.includes(variant)) throw new Error(`OBSERVABILITY_VARIANT must be one of ${VARIANTS.join(', ')}`);
  const config = loadConfig(process.env);
  const logger = createLogger({ level: config.LOG_LEVEL, silent: true });
  const db = createDb({
    connectionString: config.DATABASE_URL!,
    poolMax: config.DATABASE_POOL_MAX,
    applicationName: 'handoff-api',
    logger,
  });
  const metrics =
    variant === 'metrics' || variant === 'both'
      ? metricsRegistryOf({ ...config, METRICS_PORT: config.PORT }, { api: true, worker: false })
      : undefined;
  const tracing =
    variant === 'tracing' || variant === 'both'
      ? startTracing({ serviceName: 'handoff-bench', destination: { exporter: droppingExporter, batched: true } })
      : undefined;
  const deps = createAppDeps(config, { db, temporal: new Client(), logger, metrics, tracing });
  await listen(buildApp(deps), { host: '127.0.0.1', port: config.PORT });
}

// Run as the child process; observability.ts imports this file only for its list of variants.
if (require.main === module) {
  main().catch((error: unknown) => {
    console.error(error);
    process.exit(1);
  });
}

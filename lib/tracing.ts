import { context, propagation, trace, type Tracer } from '@opentelemetry/api';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { Resource } from '@opentelemetry/resources';
import {
  BatchSpanProcessor,
  SimpleSpanProcessor,
  type SpanExporter,
  type SpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import { ATTR_SERVICE_NAME } from '@opentelemetry/semantic-conventions';

/** What a process needs to trace: its tracer, and the processor and resource the Temporal worker's workflow spans go through. */
export interface Tracing {
  tracer: Tracer;
  spanProcessor: SpanProcessor;
  resource: Resource;
  /** Sends what is buffered and stops. */
  shutdown(): Promise<void>;
}

/** Where traces go: the OTLP/HTTP endpoint of a collector, or an exporter given in code (tests, the benchmark). */
export type TraceDestination = { otlpTracesUrl: string } | { exporter: SpanExporter; batched?: boolean };

/**
 * Registers a tracer provider for the process (OpenTelemetry's API is process-global), with W3C trace context
 * propagation and an AsyncLocalStorage context manager. OTLP spans are batched; an exporter given in code gets
 * each span as it ends (so a test reads it at once) unless it asks to be batched as OTLP is.
 */
export function startTracing(options: { serviceName: string; destination: TraceDestination }): Tracing {
  const resource = new Resource({ [ATTR_SERVICE_NAME]: options.serviceName });
  const { destination } = options;
  const spanProcessor =
    'exporter' in destination
      ? destination.batched
        ? new BatchSpanProcessor(destination.exporter)
        : new SimpleSpanProcessor(destination.exporter)
      : new BatchSpanProcessor(new OTLPTraceExporter({ url: destination.otlpTracesUrl }));
  const provider = new NodeTracerProvider({ resource, spanProcessors: [spanProcessor] });
  provider.register();
  return {
    tracer: trace.getTracer(options.serviceName),
    spanProcessor,
    resource,
    async shutdown() {
      await provider.shutdown();
      // Unregistered, so that the process can run untraced again (the benchmark compares both in one run).
      trace.disable();
      context.disable();
      propagation.disable();
    },
  };
}

/**
 * The OTLP/HTTP traces URL the standard variables ask for, or undefined when tracing is off: on when
 * OTEL_TRACES_EXPORTER is otlp or an OTLP endpoint is set, off when OTEL_TRACES_EXPORTER is none or unset
 * without an endpoint.
 */
export function otlpTracesUrlOf(settings: {
  exporter?: string | undefined;
  endpoint?: string | undefined;
  tracesEndpoint?: string | undefined;
}): string | undefined {
  if (settings.exporter === 'none') return undefined;
  if (settings.exporter !== 'otlp' && !settings.endpoint && !settings.tracesEndpoint) return undefined;
  if (settings.tracesEndpoint) return settings.tracesEndpoint;
  return `${(settings.endpoint ?? 'http://localhost:4318').replace(/\/+$/, '')}/v1/traces`;
}

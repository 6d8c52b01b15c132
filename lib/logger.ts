import { trace } from '@opentelemetry/api';
import winston from 'winston';

export type Logger = winston.Logger;

interface SerializedError {
  name: string;
  message: string;
  stack?: string;
  code?: unknown;
  cause?: unknown;
}

function serializeError(error: Error, depth = 0): SerializedError {
  const { code, cause } = error as Error & { code?: unknown; cause?: unknown };
  return {
    name: error.name,
    message: error.message,
    ...(error.stack ? { stack: error.stack } : {}),
    ...(code !== undefined ? { code } : {}),
    // A cause chain is followed a few links deep, enough for a driver error wrapped by a service error.
    ...(cause !== undefined
      ? { cause: cause instanceof Error && depth < 3 ? serializeError(cause, depth + 1) : cause }
      : {}),
  };
}

/**
 * JSON.stringify gives an Error's own enumerable properties only, so `{ error }` in a log entry's
 * metadata would print as {}: every Error-valued field is written out with its name, message, stack,
 * code and cause instead.
 */
export const errorFields = winston.format((info) => {
  for (const [key, value] of Object.entries(info)) {
    if (value instanceof Error) (info as Record<string, unknown>)[key] = serializeError(value);
  }
  return info;
});

/** A line logged inside a traced request or activity carries its trace and span ids, to find the trace from the log. */
export const traceFields = winston.format((info) => {
  const spanContext = trace.getActiveSpan()?.spanContext();
  if (spanContext && trace.isSpanContextValid(spanContext) && info.trace_id === undefined) {
    info.trace_id = spanContext.traceId;
    info.span_id = spanContext.spanId;
  }
  return info;
});

/** JSON lines for SREs: every entry carries its context (request_id, workflow_id, principal), never secrets. */
export function createLogger(options: { level: string; silent?: boolean }): Logger {
  return winston.createLogger({
    level: options.level,
    silent: options.silent ?? false,
    format: winston.format.combine(
      winston.format.timestamp(),
      winston.format.errors({ stack: true }),
      errorFields(),
      traceFields(),
      winston.format.json(),
    ),
    defaultMeta: { service: 'handoff' },
    // eslint-disable-next-line @typescript-eslint/no-unsafe-class-instance-assignment -- winston types its Console transport as an interface; it is a TransportStream
    transports: [new winston.transports.Console({ stderrLevels: ['error', 'warn'] })],
  });
}

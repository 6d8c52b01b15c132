import {
  context,
  propagation,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
  type Context,
  type Tracer,
} from '@opentelemetry/api';
import {
  ATTR_HTTP_REQUEST_METHOD,
  ATTR_HTTP_RESPONSE_STATUS_CODE,
  ATTR_HTTP_ROUTE,
  ATTR_URL_PATH,
  ATTR_USER_AGENT_ORIGINAL,
} from '@opentelemetry/semantic-conventions';
import type { RequestHandler, Response } from 'express';
import { routeTemplateOf } from './route-template';

const requestContexts = new WeakMap<Response, Context>();

/**
 * The HTTP server span of each request, a child of the caller's W3C traceparent when it sends one. Named by
 * the route template once routing has run; the rest of the request runs in its context, so Temporal calls
 * (the client interceptor) and log lines join the trace.
 */
export function traceRequests(tracer: Tracer): RequestHandler {
  return (req, res, next) => {
    const parent = propagation.extract(ROOT_CONTEXT, req.headers);
    const span = tracer.startSpan(
      req.method,
      {
        kind: SpanKind.SERVER,
        attributes: {
          [ATTR_HTTP_REQUEST_METHOD]: req.method,
          [ATTR_URL_PATH]: req.path,
          [ATTR_USER_AGENT_ORIGINAL]: req.get('user-agent') ?? '',
        },
      },
      parent,
    );
    const active = trace.setSpan(parent, span);
    requestContexts.set(res, active);
    let ended = false;
    const end = () => {
      if (ended) return;
      ended = true;
      const route = routeTemplateOf(req);
      span.updateName(`${req.method} ${route}`);
      span.setAttributes({ [ATTR_HTTP_ROUTE]: route, [ATTR_HTTP_RESPONSE_STATUS_CODE]: res.statusCode });
      if (res.statusCode >= 500 || !res.writableFinished) span.setStatus({ code: SpanStatusCode.ERROR });
      span.end();
    };
    res.once('finish', end);
    res.once('close', end);
    context.with(active, next);
  };
}

/**
 * Enters the request's trace context again: reading the body runs on stream events, which do not carry the
 * context of the middleware before them, so this is mounted after the body is read, before the routes.
 */
export function withinRequestTrace(): RequestHandler {
  return (_req, res, next) => {
    const active = requestContexts.get(res);
    if (active) context.with(active, next);
    else next();
  };
}

/** The request span's ids, for its access-log line (written once the response is sent, outside its context). */
export function traceFieldsOf(res: Response): { trace_id?: string; span_id?: string } {
  const active = requestContexts.get(res);
  const spanContext = active && trace.getSpanContext(active);
  return spanContext && trace.isSpanContextValid(spanContext)
    ? { trace_id: spanContext.traceId, span_id: spanContext.spanId }
    : {};
}

import type { RequestHandler } from 'express';
import type { HttpMetrics } from '../../lib/metrics';
import { routeTemplateOf } from './route-template';

/** Observes every answered request's duration by method, route template and status (http_server_request_duration_seconds). */
export function recordRequestMetrics(metrics: HttpMetrics): RequestHandler {
  return (req, res, next) => {
    const started = process.hrtime.bigint();
    res.once('finish', () => {
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      metrics.observe({ method: req.method, route: routeTemplateOf(req), status: res.statusCode, seconds });
    });
    next();
  };
}

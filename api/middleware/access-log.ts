import type { RequestHandler } from 'express';
import type { Logger } from '../../lib/logger';
import { principalOf } from './auth';
import { requestIdOf } from './request-id';
import { traceFieldsOf } from './tracing';

/** One line per request once it is answered: what an SRE greps for, keyed by request id. */
export function accessLog(logger: Logger): RequestHandler {
  return (req, res, next) => {
    const started = process.hrtime.bigint();
    res.on('finish', () => {
      const level = res.statusCode >= 500 ? 'error' : 'http';
      // winston formats a line before its transport drops it for its level: at the default level (info) that
      // was a timestamp and a JSON line per request for nothing.
      if (!logger.isLevelEnabled(level)) return;
      logger.log(level, 'request', {
        request_id: requestIdOf(res),
        method: req.method,
        path: req.path,
        status: res.statusCode,
        duration_ms: Number((process.hrtime.bigint() - started) / 1000n) / 1000,
        principal: principalOf(res)?.id,
        ...traceFieldsOf(res),
      });
    });
    next();
  };
}

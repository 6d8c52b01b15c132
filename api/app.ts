import cors from 'cors';
import express, { type Express, type RequestHandler } from 'express';
import { authenticateDelegationToken } from '../services/identity/delegations/authenticate';
import type { DelegationDeps } from '../services/identity/delegations/context';
import { DELEGATION_TOKEN_TYPE } from '../services/identity/issuance/delegation-tokens';
import { mountDocs } from './docs';
import { accessLog } from './middleware/access-log';
import { recordRequestMetrics } from './middleware/metrics';
import { traceRequests, withinRequestTrace } from './middleware/tracing';
import { authenticate } from './middleware/auth';
import { idempotency } from './middleware/idempotency';
import { guardBody } from './middleware/input-guard';
import { sendProblem, problemRenderer } from './middleware/problem';
import { rateLimit } from './middleware/rate-limit';
import { requestDeadline, temporalCallsWithinDeadline } from './middleware/request-deadline';
import { requestId } from './middleware/request-id';
import { deprecationHeaders } from './middleware/deprecation';
import { Problem } from './problem';
import { PrefixRouter } from './prefix-router';
import { ApiBuilder } from './route';
import { FORM_BODY_PATHS, formBody } from './middleware/form-body';
import { registerRoutes } from './routes';
import type { AppDeps } from './app-deps';

export type { AppDeps };

/** Bodies must be JSON, except the OAuth token endpoint and the form routes, which also take the standard form encoding. */
function requireJsonBody(): RequestHandler {
  return (req, _res, next) => {
    const hasBody = req.headers['transfer-encoding'] !== undefined || Number(req.headers['content-length'] ?? 0) > 0;
    if (
      !hasBody ||
      req.is('application/json') ||
      ((req.path === '/oauth/token' || FORM_BODY_PATHS.includes(req.path)) &&
        req.is('application/x-www-form-urlencoded'))
    ) {
      next();
      return;
    }
    throw new Problem(
      'unsupported_media_type',
      `Send the body as application/json, not ${req.get('content-type') ?? 'an unnamed type'}`,
    );
  };
}

/** Browsers may call from the configured origins, send the API's request headers and read its answer headers. */
function corsPolicy(origins: string[]): RequestHandler {
  return cors({
    origin: origins,
    methods: ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'],
    // traceparent and tracestate: a browser client's trace continues into the API's (W3C Trace Context).
    allowedHeaders: [
      'Authorization',
      'Content-Type',
      'Idempotency-Key',
      'X-Request-ID',
      'X-Agent-ID',
      'X-Confidence-Score',
      'Prefer',
      'traceparent',
      'tracestate',
    ],
    exposedHeaders: [
      'X-RateLimit-Limit',
      'X-RateLimit-Remaining',
      'X-RateLimit-Reset',
      'X-RateLimit-Resource',
      'X-Request-ID',
      'Retry-After',
      'Idempotent-Replayed',
      'Location',
      'Deprecation',
      'Sunset',
      'Link',
    ],
    maxAge: 600,
  });
}

/** What every request passes before its route: id, trace, metrics, log, deadline, CORS, metering, body reading. */
function useRequestMiddleware(app: Express, deps: AppDeps, meter: PrefixRouter): void {
  const { settings } = deps;
  app.use(requestId());
  if (deps.tracer) app.use(traceRequests(deps.tracer));
  if (deps.httpMetrics) app.use(recordRequestMetrics(deps.httpMetrics));
  app.use(accessLog(deps.logger));
  app.use(requestDeadline({ timeoutMs: settings.requestTimeoutMs, logger: deps.logger }));
  app.use(corsPolicy(settings.corsAllowedOrigins));
  app.use(deprecationHeaders(settings.deprecations));
  // Callers are identified and counted before any body is read: a refused body (413, 415, malformed JSON) carries X-RateLimit-* too.
  app.use(meter.handle);
  app.use(requireJsonBody());
  app.use(express.json({ limit: settings.bodyLimit, strict: false }));
  app.use('/oauth/token', express.urlencoded({ extended: false, limit: '16kb' }));
  app.use(formBody());
  app.use(guardBody({ maxDepth: settings.jsonMaxDepth }));
}

function apiBuilder(deps: AppDeps, meter: PrefixRouter, delegation: DelegationDeps): ApiBuilder {
  const { settings } = deps;
  const verifiers = { [DELEGATION_TOKEN_TYPE]: (token: string) => authenticateDelegationToken(delegation, token) };
  return new ApiBuilder({
    authenticate: authenticate({
      db: deps.db,
      keyRing: deps.keyRing,
      settings: settings.token,
      verifiers,
      credentials: deps.credentials,
    }),
    rateLimit: (category) => rateLimit({ db: deps.db, settings: settings.rateLimits, logger: deps.logger }, category),
    idempotency: idempotency({
      db: deps.db,
      logger: deps.logger,
      requestTimeoutMs: settings.requestTimeoutMs,
      secretKeys: settings.platform.secretKeys,
    }),
    meter,
  });
}

/** A request no route answered: 405 with Allow where the path has other methods, else 404. */
function answerUnmatched(api: ApiBuilder): RequestHandler {
  return (req, res) => {
    const allowed = api.allowedMethods(req.path);
    const instance = req.originalUrl.split('?')[0] ?? req.path;
    if (allowed.length > 0) {
      res.set('Allow', [...allowed, ...(allowed.includes('GET') ? ['HEAD'] : [])].join(', '));
      sendProblem(
        res,
        new Problem(
          'method_not_allowed',
          `${req.method} is not allowed on ${req.path}; allowed: ${allowed.join(', ')}`,
        ),
        instance,
      );
      return;
    }
    sendProblem(res, new Problem('not_found', `Nothing at ${req.method} ${req.path}`), instance);
  };
}

export function buildApp(deps: AppDeps): Express {
  const { settings } = deps;
  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', 'loopback');
  app.set('query parser', 'simple');

  const meter = new PrefixRouter();
  useRequestMiddleware(app, deps, meter);
  const delegation = { db: deps.db, keyRing: deps.keyRing, settings: settings.token, revocations: deps.revocations };
  const api = apiBuilder(deps, meter, delegation);
  registerRoutes(api, deps, delegation);
  if (deps.tracer) app.use(withinRequestTrace());
  app.use(temporalCallsWithinDeadline(deps.temporal));
  app.use(api.router.handle);
  mountDocs(app, api, settings.publicBaseUrl);
  api.compile();
  app.use(answerUnmatched(api));
  app.use(problemRenderer(deps.logger));
  return app;
}

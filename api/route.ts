import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { OpenAPIRegistry, type RouteConfig } from '@asteasolutions/zod-to-openapi';
import { Router, type Request, type RequestHandler, type Response } from 'express';
import { match } from 'path-to-regexp';
import type { ZodError, ZodType } from 'zod';
import type { Principal, Scope } from '../services/auth/tokens';
import { requireScope } from './middleware/auth';
import { IDEMPOTENCY_KEY_PATTERN } from './middleware/idempotency';
import type { RateLimitCategory } from './middleware/rate-limit';
import { Problem, type FieldError } from './problem';
import { ProblemSchema } from './schemas/common';
import { z } from './schemas/zod';

type Method = 'get' | 'post' | 'put' | 'patch' | 'delete';

export interface Reply {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
  /** A body that is not JSON (an HTML page), sent as it is with its content type. */
  text?: { contentType: string; content: string };
  /** A body written piece by piece as the client reads it (JSON lines of a large export). */
  stream?: { contentType: string; chunks: AsyncIterable<string> };
}

export interface RouteContext<B, Q, P, H = undefined> {
  req: Request;
  res: Response;
  body: B;
  query: Q;
  params: P;
  /** The request headers the route declares, parsed by their schema (names in lower case). */
  headers: H;
  /** Present on every route that requires a scope. */
  principal: Principal;
}

type Infer<T> = T extends ZodType ? z.infer<T> : undefined;

export interface RouteSpec<B extends ZodType | undefined, Q extends ZodType | undefined, P extends ZodType | undefined, H extends ZodType | undefined = undefined> {
  method: Method;
  /** OpenAPI form: /v1/orch/routing/{routing_id} */
  path: string;
  operationId: string;
  summary: string;
  description?: string;
  tags: string[];
  /** The scope the caller needs, or 'public'. */
  auth: Scope | 'public';
  /** The rate-limit category, or null for operational endpoints that must answer whatever the load. */
  rateLimit: RateLimitCategory | null;
  /** Idempotency-Key support on a mutating route; off where the response holds a secret that must not be stored. */
  idempotency?: boolean;
  request?: { body?: B; query?: Q; params?: P; headers?: H };
  responses: Record<number, { description: string; schema?: ZodType; contentType?: string; headers?: Record<string, { description: string }> }>;
  handler: (ctx: RouteContext<Infer<B>, Infer<Q>, Infer<P>, Infer<H>>) => Promise<Reply> | Reply;
}

export interface ApiMiddleware {
  authenticate: RequestHandler;
  rateLimit: (category: RateLimitCategory) => RequestHandler;
  idempotency: RequestHandler;
}

function fieldErrors(error: ZodError, location: string): FieldError[] {
  return error.issues.map((issue) => ({
    field: [location, ...issue.path.map(String)].filter(Boolean).join('.'),
    code: issue.code,
    message: issue.message,
  }));
}

function parse<T extends ZodType>(schema: T | undefined, value: unknown, location: string): unknown {
  if (!schema) return undefined;
  const result = schema.safeParse(value);
  if (!result.success) throw new Problem('validation_failed', `The ${location} has ${result.error.issues.length} invalid field(s)`, { errors: fieldErrors(result.error, location === 'body' ? '' : location) });
  return result.data;
}

const STANDARD_PROBLEMS: Record<number, string> = {
  400: 'Invalid request (problem details list the fields)',
  401: 'Missing or invalid bearer token',
  403: 'The token lacks the required scope',
  429: 'Rate limit exceeded; see Retry-After',
  500: 'Internal error (shows only the request id)',
};

const MUTATING: Method[] = ['post', 'put', 'patch', 'delete'];

/**
 * Declares the API's routes in one place each: the Express handler chain, the OpenAPI operation, and the
 * table the 405 handler consults, all from the same spec and zod schemas.
 */
export class ApiBuilder {
  readonly router = Router();
  readonly registry = new OpenAPIRegistry();
  private readonly table: Array<{ method: string; matches: (path: string) => boolean }> = [];

  constructor(private readonly middleware: ApiMiddleware) {
    this.registry.register('Problem', ProblemSchema);
    this.registry.registerComponent('securitySchemes', 'bearerAuth', {
      type: 'http',
      scheme: 'bearer',
      description: 'An access token from POST /oauth/token (client credentials), or a personal access token (hnd_pat_…).',
    });
  }

  route<B extends ZodType | undefined = undefined, Q extends ZodType | undefined = undefined, P extends ZodType | undefined = undefined, H extends ZodType | undefined = undefined>(
    spec: RouteSpec<B, Q, P, H>,
  ): void {
    const expressPath = spec.path.replace(/\{(\w+)\}/g, ':$1');
    this.table.push({ method: spec.method.toUpperCase(), matches: ((matcher) => (path: string) => matcher(path) !== false)(match(expressPath)) });

    const chain: RequestHandler[] = [];
    if (spec.auth !== 'public') chain.push(this.middleware.authenticate);
    if (spec.rateLimit) chain.push(this.middleware.rateLimit(spec.rateLimit));
    if (spec.auth !== 'public') chain.push(requireScope(spec.auth));
    const idempotent = spec.auth !== 'public' && MUTATING.includes(spec.method) && spec.idempotency !== false;
    if (idempotent) chain.push(this.middleware.idempotency);
    chain.push(async (req, res) => {
      const body = parse(spec.request?.body, req.body ?? {}, 'body');
      const query = parse(spec.request?.query, req.query, 'query');
      const params = parse(spec.request?.params, req.params, 'path');
      const headers = parse(spec.request?.headers, req.headers, 'header');
      const reply = await spec.handler({ req, res, body, query, params, headers, principal: res.locals.principal } as RouteContext<Infer<B>, Infer<Q>, Infer<P>, Infer<H>>);
      if (reply.headers) res.set(reply.headers);
      if (reply.stream) {
        res.status(reply.status).type(reply.stream.contentType);
        // Backpressure from the client paces the source; a client that goes away stops it.
        await pipeline(Readable.from(reply.stream.chunks), res).catch((error: NodeJS.ErrnoException) => {
          if (error.code !== 'ERR_STREAM_PREMATURE_CLOSE') throw error;
        });
        return;
      }
      if (reply.text) {
        res.status(reply.status).type(reply.text.contentType).send(reply.text.content);
        return;
      }
      // send, not end: the idempotency middleware records the response as it passes through send.
      if (reply.body === undefined) res.status(reply.status).send();
      else res.status(reply.status).json(reply.body);
    });
    this.router[spec.method](expressPath, ...chain);
    this.registry.registerPath(this.openApiOperation(spec));
  }

  /** The methods that exist for a path, for 405 and its Allow header. */
  allowedMethods(path: string): string[] {
    return [...new Set(this.table.filter((entry) => entry.matches(path)).map((entry) => entry.method))];
  }

  private openApiOperation<B extends ZodType | undefined, Q extends ZodType | undefined, P extends ZodType | undefined, H extends ZodType | undefined>(
    spec: RouteSpec<B, Q, P, H>,
  ): RouteConfig {
    const responses: RouteConfig['responses'] = {};
    for (const [status, response] of Object.entries(spec.responses)) {
      responses[status] = {
        description: response.description,
        ...(response.headers ? { headers: response.headers } : {}),
        ...documentedContent(Number(status), response),
      };
    }
    const standard = spec.auth === 'public' ? [400, 500] : spec.rateLimit ? [400, 401, 403, 429, 500] : [400, 401, 403, 500];
    for (const status of standard) {
      responses[status] ??= { description: STANDARD_PROBLEMS[status]!, content: { 'application/problem+json': { schema: ProblemSchema } } };
    }
    const idempotencyHeader = spec.auth !== 'public' && MUTATING.includes(spec.method) && spec.idempotency !== false;
    return {
      method: spec.method,
      path: spec.path,
      operationId: spec.operationId,
      summary: spec.summary,
      ...(spec.description ? { description: spec.description } : {}),
      tags: spec.tags,
      ...(spec.auth !== 'public' ? { security: [{ bearerAuth: [spec.auth] }] } : {}),
      request: {
        ...(spec.request?.body ? { body: { required: true, content: { 'application/json': { schema: spec.request.body } } } } : {}),
        ...(spec.request?.query ? { query: spec.request.query as never } : {}),
        ...(spec.request?.params ? { params: spec.request.params as never } : {}),
        ...(spec.request?.headers || idempotencyHeader ? { headers: documentedHeaders(spec.request?.headers, idempotencyHeader) as never } : {}),
      },
      responses,
      ...(spec.rateLimit ? { 'x-rate-limit-category': spec.rateLimit } : {}),
    } as RouteConfig;
  }
}

/** A response's body in the document: its own schema, or for an error that names none, the problem document every error is. */
function documentedContent(status: number, response: { schema?: ZodType; contentType?: string }) {
  const schema = response.schema ?? (status >= 400 ? ProblemSchema : undefined);
  if (!schema) return {};
  return { content: { [response.contentType ?? (response.schema ? 'application/json' : 'application/problem+json')]: { schema } } };
}

/** The route's own headers, with Idempotency-Key beside them on a mutating route. */
function documentedHeaders(own: ZodType | undefined, idempotent: boolean): ZodType {
  if (!own) return idempotencyHeaderSchema;
  return idempotent && own instanceof z.ZodObject ? own.extend(idempotencyHeaderSchema.shape) : own;
}

const idempotencyHeaderSchema = z.object({
  'idempotency-key': z
    .string()
    .regex(IDEMPOTENCY_KEY_PATTERN)
    .optional()
    .openapi({ description: 'Makes a retry safe for 24 h: a replay returns the first response with Idempotent-Replayed: true' }),
});

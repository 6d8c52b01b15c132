import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { OpenAPIRegistry } from '@asteasolutions/zod-to-openapi';
import type { Request, RequestHandler, Response } from 'express';
import { match } from 'path-to-regexp';
import type { ZodType } from 'zod';
import type { Principal, Scope } from '../services/identity/scopes';
import { fieldErrors } from './field-errors';
import { capabilityOf } from './capabilities';
import { principalOf, requireAccess } from './middleware/auth';
import { guardParameters } from './middleware/input-guard';
import type { RateLimitCategory } from './middleware/rate-limit';
import {
  createApiRegistry,
  isIdempotent,
  openApiOperation,
  type OperationSpec,
  type RouteAuth,
} from './openapi-assembly';
import { PrefixRouter } from './prefix-router';
import { Problem } from './problem';
import type { z } from './schemas/zod';

export type { ResourceScope, ResponseSpec } from './openapi-assembly';

export interface Reply {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
  /** A body that is not JSON (an HTML page), sent as it is with its content type. */
  text?: { contentType: string; content: string };
  /** A body written piece by piece as the client reads it (JSON lines of a large export). */
  stream?: { contentType: string; chunks: AsyncIterable<string> };
}

export interface RouteContext<B, Q, P, H = undefined, A extends RouteAuth = Scope, R = undefined> {
  req: Request;
  res: Response;
  body: B;
  query: Q;
  params: P;
  /** The request headers the route declares, parsed by their schema (names in lower case). */
  headers: H;
  /** The authenticated caller: always there on a route that requires a scope, there on a public route only when it sent valid credentials. */
  principal: A extends 'public' ? Principal | undefined : Principal;
  /** The route's read ahead (RouteSpec.readAhead), made while the call was counted; undefined when it was not made. */
  readAhead: Promise<R> | undefined;
}

/** What a read ahead knows of a call: its path parameters as sent (not yet parsed) and the caller, authenticated. */
export interface ReadAheadContext {
  params: Record<string, string>;
  principal: Principal;
}

/** The parsed type of an optional schema: undefined where the route declares none. */
export type Infer<T> = T extends ZodType ? z.infer<T> : undefined;

/**
 * auth: the scope the caller needs, or 'public'. rateLimit: the category the call is counted in. Every
 * authenticated route has one; only a public operational endpoint, which must answer whatever the load, has null.
 */
export interface RouteSpec<
  B extends ZodType | undefined,
  Q extends ZodType | undefined,
  P extends ZodType | undefined,
  H extends ZodType | undefined = undefined,
  A extends RouteAuth = RouteAuth,
  R = undefined,
> extends Omit<OperationSpec, 'request' | 'auth' | 'rateLimit'> {
  /** bodyTypes: the media types the body may come in; application/json when not given. */
  request?: { body?: B; query?: Q; params?: P; headers?: H; bodyTypes?: string[] };
  auth: A;
  rateLimit: A extends 'public' ? RateLimitCategory | null : RateLimitCategory;
  /**
   * A read the handler needs that depends only on the path and the caller, started as soon as the caller is
   * authenticated, beside the rate limit's count: the two round trips are made at once rather than one after the
   * other. It must write nothing (a refused call discards it) and filter by the caller's organization.
   */
  readAhead?: (ahead: ReadAheadContext) => Promise<R>;
  handler: (ctx: RouteContext<Infer<B>, Infer<Q>, Infer<P>, Infer<H>, A, R>) => Promise<Reply> | Reply;
}

export interface ApiMiddleware {
  authenticate: RequestHandler;
  rateLimit: (category: RateLimitCategory) => RequestHandler;
  idempotency: RequestHandler;
  /**
   * A router mounted before bodies are read, which the builder fills: it identifies the caller and counts the call
   * in its operation's category, so that every answer of a counted operation carries X-RateLimit-*.
   */
  meter?: PrefixRouter;
}

function parse(schema: ZodType | undefined, value: unknown, location: string): unknown {
  if (!schema) return undefined;
  // The input is kept on each issue only to say what was received (a type name or a short rendering).
  const result = schema.safeParse(value, { reportInput: true });
  if (!result.success)
    throw new Problem('validation_failed', `The ${location} has ${result.error.issues.length} invalid field(s)`, {
      errors: fieldErrors(result.error, location === 'body' ? '' : location),
    });
  return result.data;
}

const leaveMeter: RequestHandler = (_req, _res, next) => next('router');

/** Starts a route's read ahead for an authenticated caller; the handler awaits it, a refused call never does. */
function startReadAhead(readAhead: (ahead: ReadAheadContext) => Promise<unknown>): RequestHandler {
  return (req, res, next) => {
    const principal = principalOf(res);
    if (principal) {
      const read = readAhead({ params: req.params as Record<string, string>, principal });
      // Handled here so that a call refused before its handler leaves no unhandled rejection; the handler still sees it.
      read.catch(() => undefined);
      res.locals.readAhead = read;
    }
    next();
  };
}

/**
 * Declares the API's routes in one place each: the Express handler chain, the OpenAPI operation, and the
 * table the 405 handler consults, all from the same spec and zod schemas.
 */
export class ApiBuilder {
  readonly router = new PrefixRouter();
  readonly meter: PrefixRouter;
  readonly registry: OpenAPIRegistry = createApiRegistry();
  private readonly table: Array<{ method: string; matches: (path: string) => boolean }> = [];

  constructor(private readonly middleware: ApiMiddleware) {
    this.meter = middleware.meter ?? new PrefixRouter();
  }

  route<
    B extends ZodType | undefined = undefined,
    Q extends ZodType | undefined = undefined,
    P extends ZodType | undefined = undefined,
    H extends ZodType | undefined = undefined,
    A extends RouteAuth = RouteAuth,
    R = undefined,
  >(spec: RouteSpec<B, Q, P, H, A, R>): void {
    const expressPath = spec.path.replace(/\{(\w+)\}/g, ':$1');
    this.table.push({
      method: spec.method.toUpperCase(),
      matches: (
        (matcher) => (path: string) =>
          matcher(path) !== false
      )(match(expressPath)),
    });

    // The first route that matches a request meters it, as the first that matches answers it.
    const metering: RequestHandler[] = [];
    if (spec.rateLimit && spec.auth !== 'public') metering.push(this.middleware.authenticate);
    if (spec.readAhead && spec.rateLimit && spec.auth !== 'public') metering.push(startReadAhead(spec.readAhead));
    if (spec.rateLimit) metering.push(this.middleware.rateLimit(spec.rateLimit));
    this.meter.add(spec.method, expressPath, [...metering, leaveMeter]);

    const chain: RequestHandler[] = [guardParameters];
    if (spec.auth !== 'public')
      chain.push(
        requireAccess(typeof spec.auth === 'string' ? spec.auth : undefined, capabilityOf(spec.method, spec.path)),
      );
    if (isIdempotent(spec)) chain.push(this.middleware.idempotency);
    chain.push(async (req, res) => {
      const body = parse(spec.request?.body, req.body ?? {}, 'body');
      const query = parse(spec.request?.query, req.query, 'query');
      const params = parse(spec.request?.params, req.params, 'path');
      const headers = parse(spec.request?.headers, req.headers, 'header');
      const reply = await spec.handler({
        req,
        res,
        body,
        query,
        params,
        headers,
        principal: principalOf(res),
        readAhead: spec.readAhead ? (res.locals.readAhead as Promise<R> | undefined) : undefined,
      } as RouteContext<Infer<B>, Infer<Q>, Infer<P>, Infer<H>, A, R>);
      if (reply.headers) res.set(reply.headers);
      if (reply.stream) {
        res.status(reply.status).type(reply.stream.contentType);
        // Backpressure from the client paces the source; a client that goes away stops it.
        await pipeline(Readable.from(reply.stream.chunks), res).catch((error: unknown) => {
          if ((error as NodeJS.ErrnoException).code !== 'ERR_STREAM_PREMATURE_CLOSE') throw error;
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
    this.router.add(spec.method, expressPath, chain);
    this.registry.registerPath(openApiOperation(spec));
  }

  /** Builds the routers' prefix trees once every route is declared, so that the first request does not. */
  compile(): void {
    this.router.compile();
    this.meter.compile();
  }

  /** The methods that exist for a path, for 405 and its Allow header. */
  allowedMethods(path: string): string[] {
    return [...new Set(this.table.filter((entry) => entry.matches(path)).map((entry) => entry.method))];
  }
}

import type { ZodType } from 'zod';
import type { Principal, Scope } from '../services/identity/scopes';
import type { RateLimitCategory } from './middleware/rate-limit';
import type { OperationSpec } from './openapi-assembly';
import { Problem, type ProblemCode } from './problem';
import type { ApiBuilder, Infer, ResourceScope, ResponseSpec } from './route';

export interface GetContext<Q, P> {
  query: Q;
  params: P;
  principal: Principal;
}

/** What a read route declares about itself: its operation, who may call it, and how often. */
export type ReadOperation = Pick<OperationSpec, 'path' | 'operationId' | 'summary' | 'description' | 'tags'> & {
  auth: Scope | ResourceScope;
  rateLimit: RateLimitCategory;
};

export interface GetRouteSpec<Q extends ZodType | undefined, P extends ZodType | undefined, Row> extends ReadOperation {
  params?: P;
  query?: Q;
  /** The 200 answer. */
  found: ResponseSpec;
  /** The 404 answer: its problem code (the document's description unless another is given) and its detail, if any. */
  missing: { code: ProblemCode; description?: string; detail?: (ctx: GetContext<Infer<Q>, Infer<P>>) => string };
  /** The answers beside 200 and 404. */
  responses?: Record<number, ResponseSpec>;
  find: (ctx: GetContext<Infer<Q>, Infer<P>>) => Promise<Row | null | undefined>;
  view: (row: Row) => unknown;
}

/** A GET that reads one thing, answers its view, or the route's not-found problem when there is none. */
export function getRoute<
  Q extends ZodType | undefined = undefined,
  P extends ZodType | undefined = undefined,
  Row = unknown,
>(api: ApiBuilder, spec: GetRouteSpec<Q, P, Row>): void {
  const { params, query, found, missing, responses, find, view, ...operation } = spec;
  api.route({
    ...operation,
    method: 'get',
    request: { params, query },
    responses: { 200: found, 404: { description: missing.description ?? missing.code }, ...responses },
    handler: async (ctx) => {
      const read = { query: ctx.query, params: ctx.params, principal: ctx.principal };
      const row = await find(read);
      if (row === null || row === undefined) throw new Problem(missing.code, missing.detail?.(read));
      return { status: 200, body: view(row) };
    },
  });
}

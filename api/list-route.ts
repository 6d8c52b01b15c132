import type { ZodType } from 'zod';
import type { Page, PageRequest } from '../db/pagination';
import type { Principal } from '../services/identity/scopes';
import { parseSort, withCursorProblems } from './middleware/pagination';
import { Problem, type ProblemCode } from './problem';
import type { ReadOperation } from './get-route';
import type { ApiBuilder, Infer, ResponseSpec } from './route';
import { pageSchema } from './schemas/common';

/** The query every list takes (listQuerySchema), with the list's own filters beside it. */
export type ListQuery = ZodType<{ limit: number; cursor?: string | undefined; sort?: string | undefined }>;

export interface ListContext<Q, P> {
  query: Q;
  params: P;
  principal: Principal;
  /** limit, cursor and the parsed sort, ready for the db's list query. */
  page: PageRequest;
}

export interface ListRouteSpec<Q extends ListQuery, P extends ZodType | undefined, Row> extends ReadOperation {
  query: Q;
  params?: P;
  /** The 200 answer: a page of item under the component name, or a page schema of the list's own. */
  page: { description: string } & ({ item: ZodType; name: string } | { schema: ZodType });
  /** The answers beside the page (404 for an unknown parent). */
  responses?: Record<number, ResponseSpec>;
  /** A list of one parent's items: the parent is looked up before the sort is read, and an unknown one is this problem. */
  parent?: { find: (ctx: Omit<ListContext<Infer<Q>, Infer<P>>, 'page'>) => Promise<unknown>; missing: ProblemCode };
  /** parseSort's options: the sortable fields, the default order, the column that makes cursors stable. */
  sort: Parameters<typeof parseSort>[1];
  list: (ctx: ListContext<Infer<Q>, Infer<P>>) => Promise<Page<Row>>;
  /** How a row is shown; the caller may see less of it than another (a reviewer's contact, to administrators). */
  view: (row: Row, principal: Principal) => unknown;
}

/** A GET that answers one page of a keyset-paginated list, with the list's rows shown through its view. */
export function listRoute<Q extends ListQuery, P extends ZodType | undefined = undefined, Row = unknown>(
  api: ApiBuilder,
  spec: ListRouteSpec<Q, P, Row>,
): void {
  const { page, query, params, sort, list, view, responses, parent, ...operation } = spec;
  const schema = 'schema' in page ? page.schema : pageSchema(page.item, page.name);
  api.route({
    ...operation,
    method: 'get',
    request: { query, params },
    responses: { 200: { description: page.description, schema }, ...responses },
    handler: async (ctx) => {
      const read = { query: ctx.query, params: ctx.params, principal: ctx.principal };
      if (parent && !(await parent.find(read))) throw new Problem(parent.missing);
      const pageRequest = { limit: ctx.query.limit, cursor: ctx.query.cursor, sort: parseSort(ctx.query.sort, sort) };
      const found = await withCursorProblems(list({ ...read, page: pageRequest }));
      return { status: 200, body: { ...found, data: found.data.map((row) => view(row, ctx.principal)) } };
    },
  });
}

import type { Knex } from 'knex';

export interface SortField {
  column: string;
  direction: 'asc' | 'desc';
}

export interface PageRequest {
  limit: number;
  cursor?: string | undefined;
  sort: SortField[];
}

export interface Page<T> {
  data: T[];
  has_more: boolean;
  next_cursor: string | null;
  total_count: number;
}

export class InvalidCursorError extends Error {
  override name = 'InvalidCursorError';
}

type CursorValue = string | number | boolean | null;

function sortSignature(sort: SortField[]): string {
  return sort.map((field) => `${field.direction === 'desc' ? '-' : ''}${field.column}`).join(',');
}

function encodeCursor(sort: SortField[], values: CursorValue[]): string {
  return Buffer.from(JSON.stringify({ s: sortSignature(sort), v: values })).toString('base64url');
}

function decodeCursor(cursor: string, sort: SortField[]): CursorValue[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw new InvalidCursorError('The cursor is not one this API issued');
  }
  if (typeof parsed !== 'object' || parsed === null)
    throw new InvalidCursorError('The cursor is not one this API issued');
  const body = parsed as { s?: unknown; v?: unknown };
  if (!Array.isArray(body.v) || body.v.length !== sort.length || !body.v.every(isCursorValue)) {
    throw new InvalidCursorError('The cursor is not one this API issued');
  }
  if (body.s !== sortSignature(sort))
    throw new InvalidCursorError('The cursor was issued for another sort order; start again without it');
  return body.v;
}

function isCursorValue(value: unknown): value is CursorValue {
  return value === null || typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean';
}

const cursorColumn = (index: number) => `_cursor_${index}`;

/** Postgres data exceptions (SQLSTATE class 22): a value it cannot read as the column's type. */
function isDataException(error: unknown): boolean {
  const code = (error as { code?: unknown }).code;
  return typeof code === 'string' && code.startsWith('22');
}

/**
 * Keyset pagination: the cursor holds the sort values of the last row returned, so pages stay stable
 * while rows are inserted. The last sort field must be unique (callers append the primary key), and the
 * query names the columns it selects (the cursor's columns are added to them).
 */
export async function paginate<T extends object>(query: Knex.QueryBuilder, page: PageRequest): Promise<Page<T>> {
  const { sort, limit } = page;
  const total = await query.clone().clearSelect().clearOrder().count<{ count: number }[]>({ count: '*' });
  const pageQuery = query.clone();
  // The cursor keeps each sort value as Postgres prints it: a JS Date would cut a timestamp to milliseconds,
  // and the next page would start before rows already returned.
  sort.forEach((field, index) =>
    pageQuery.select(query.client.raw('??::text as ??', [field.column, cursorColumn(index)])),
  );
  if (page.cursor) {
    const values = decodeCursor(page.cursor, sort);
    // (a, b, c) after (va, vb, vc): a > va OR (a = va AND b > vb) OR (a = va AND b = vb AND c > vc).
    pageQuery.where((outer) => {
      sort.forEach((field, index) => {
        outer.orWhere((inner) => {
          for (let i = 0; i < index; i += 1) inner.where(sort[i]!.column, values[i] as never);
          inner.where(field.column, field.direction === 'asc' ? '>' : '<', values[index] as never);
        });
      });
    });
  }
  for (const field of sort) pageQuery.orderBy(field.column, field.direction);
  let rows: Record<string, unknown>[];
  try {
    rows = (await pageQuery.limit(limit + 1)) as Record<string, unknown>[];
  } catch (error) {
    // Values Postgres cannot read as their columns' types came from a cursor we did not issue.
    if (page.cursor && isDataException(error)) throw new InvalidCursorError('The cursor is not one this API issued');
    throw error;
  }
  const has_more = rows.length > limit;
  const kept = rows.slice(0, limit);
  const last = kept[kept.length - 1];
  const next_cursor =
    has_more && last
      ? encodeCursor(
          sort,
          sort.map((_, index) => last[cursorColumn(index)] as CursorValue),
        )
      : null;
  const cursorColumns = new Set(sort.map((_, index) => cursorColumn(index)));
  const data = kept.map((row) =>
    Object.fromEntries(Object.entries(row).filter(([column]) => !cursorColumns.has(column))),
  );
  return { data: data as T[], has_more, next_cursor, total_count: total[0]?.count ?? 0 };
}

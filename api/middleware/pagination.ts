import { InvalidCursorError, type SortField } from '../../db/pagination';
import { Problem } from '../problem';

/**
 * Turns `sort=a,-b` into sort fields over the allowed columns, always ending with the unique key so that
 * cursors are stable; an unknown field is a validation problem naming the allowed ones.
 */
export function parseSort(
  sort: string | undefined,
  options: { allowed: Record<string, string>; fallback: string; uniqueKey: string },
): SortField[] {
  const requested = (sort ?? options.fallback)
    .split(',')
    .map((part) => part.trim())
    .filter(Boolean);
  const fields: SortField[] = requested.map((part) => {
    const name = part.replace(/^-/, '');
    // Own fields only: toString or __proto__ would otherwise come from Object.prototype.
    const column = Object.hasOwn(options.allowed, name) ? options.allowed[name] : undefined;
    if (!column) {
      throw new Problem('validation_failed', `Cannot sort by ${name}`, {
        errors: [
          {
            field: 'query.sort',
            code: 'invalid_value',
            message: `sortable fields: ${Object.keys(options.allowed).join(', ')}`,
          },
        ],
      });
    }
    return { column, direction: part.startsWith('-') ? 'desc' : 'asc' };
  });
  if (!fields.some((field) => field.column === options.uniqueKey))
    fields.push({ column: options.uniqueKey, direction: fields[0]?.direction ?? 'asc' });
  return fields;
}

/** A foreign or stale cursor is the client's mistake: a 400 problem, not a 500. */
export async function withCursorProblems<T>(work: Promise<T>): Promise<T> {
  try {
    return await work;
  } catch (error) {
    if (error instanceof InvalidCursorError) {
      throw new Problem('invalid_cursor', error.message, {
        errors: [{ field: 'query.cursor', code: 'invalid_cursor', message: error.message }],
      });
    }
    throw error;
  }
}

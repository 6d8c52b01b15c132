import type { z } from 'zod';
import type { Nullable } from '../lib/nullable';

/** An aggregate's state as its table returns it: unset fields null, the named instants as Date. */
export type ProjectedRow<T, Instants extends keyof T> = Nullable<Omit<T, Instants>> & {
  [K in Instants]-?: undefined extends T[K] ? Date | null : Date;
};

/**
 * The state a projected row holds (the inverse of lib/shape.ts rowOf, as pg reads it back): the aggregate's
 * fields only, null ones left out, instants as ISO strings; jsonb and array columns arrive parsed.
 */
export function stateOfRow<S extends z.ZodRawShape>(aggregate: z.ZodObject<S>, row: object): z.infer<z.ZodObject<S>> {
  const columns = row as Record<string, unknown>;
  const state: Record<string, unknown> = {};
  for (const key of Object.keys(aggregate.shape)) {
    const value = columns[key];
    if (value !== null && value !== undefined) state[key] = value instanceof Date ? value.toISOString() : value;
  }
  return state as z.infer<z.ZodObject<S>>;
}

import { z } from 'zod';

/**
 * One zod object per aggregate, and the forms derived from it: the API view (its schema, hence its OpenAPI
 * component, and its mapper) and the database row. The aggregate's fields are written once, in its schema;
 * here each form only says how it differs: a field shown under another name, a field kept internal.
 */
type Shape = z.ZodRawShape;
type Keys<S extends Shape> = Extract<keyof S, string>;

export interface ViewSpec<S extends Shape, R extends Partial<Record<Keys<S>, string>>, H extends Keys<S>> {
  /** Fields the view names differently: the aggregate's key → the view's key. */
  rename?: R;
  /** Fields the view does not show. */
  hide?: readonly H[];
}

/** The key a field has in the view. */
type ViewKey<K extends string, R> = K extends keyof R ? (R[K] extends string ? R[K] : K) : K;

/** An aggregate's value as the view shows it: unset fields null, renamed fields under their view names. */
export type ViewOf<S extends Shape, R, H extends string> = {
  [K in Exclude<Keys<S>, H> as ViewKey<K, R>]-?: undefined extends z.infer<S[K]>
    ? Exclude<z.infer<S[K]>, undefined> | null
    : z.infer<S[K]>;
};

/** A field's schema as the view shows it: an optional field becomes nullable, keeping its description and example. */
function viewField(field: z.ZodType): z.ZodType {
  if (!(field instanceof z.ZodOptional)) return field;
  const meta = field.meta();
  const nullable = (field.unwrap() as z.ZodType).nullable();
  return meta ? nullable.meta(meta) : nullable;
}

export interface View<S extends Shape, R, H extends string> {
  /** The view's schema, in the aggregate's field order: register it as the OpenAPI component. */
  schema: z.ZodObject<{ [K in keyof ViewOf<S, R, H>]: z.ZodType<ViewOf<S, R, H>[K]> }>;
  /** The view of one value. */
  of: (value: z.infer<z.ZodObject<S>>) => ViewOf<S, R, H>;
  /** The aggregate's key behind each of the view's keys, for tests that check coverage. */
  fields: Readonly<Record<string, Keys<S>>>;
}

export function viewOf<
  S extends Shape,
  const R extends Partial<Record<Keys<S>, string>> = Partial<Record<Keys<S>, undefined>>,
  const H extends Keys<S> = never,
>(aggregate: z.ZodObject<S>, spec: ViewSpec<S, R, H> = {}): View<S, R, H> {
  const hidden = new Set<string>(spec.hide ?? []);
  const rename = (spec.rename ?? {}) as Partial<Record<string, string>>;
  const fields: Record<string, Keys<S>> = {};
  const shape: Record<string, z.ZodType> = {};
  for (const [key, field] of Object.entries(aggregate.shape)) {
    if (hidden.has(key)) continue;
    const viewKey = rename[key] ?? key;
    fields[viewKey] = key as Keys<S>;
    shape[viewKey] = viewField(field as z.ZodType);
  }
  const entries = Object.entries(fields);
  return {
    schema: z.object(shape) as unknown as View<S, R, H>['schema'],
    of: (value) => {
      const source = value as Record<string, unknown>;
      const view: Record<string, unknown> = {};
      for (const [viewKey, key] of entries) view[viewKey] = source[key] ?? null;
      return view as ViewOf<S, R, H>;
    },
    fields,
  };
}

type Nullable<T, V> = undefined extends T ? V | null : V;

/** An aggregate's value as a table row: unset fields null, objects and arrays as JSON text (jsonb columns). */
export type RowOf<T> = {
  [K in keyof T]-?: NonNullable<T[K]> extends object
    ? Nullable<T[K], string>
    : Nullable<T[K], Exclude<T[K], undefined>>;
};

export interface RowSpec<T> {
  /** Values for fields that older values may lack (the column is not null). */
  defaults?: { [K in keyof T]?: Exclude<T[K], undefined> };
}

/** Whether a field is stored as JSON: objects, records and arrays (optional or not). */
function isJsonField(field: z.ZodType): boolean {
  const inner =
    field instanceof z.ZodOptional || field instanceof z.ZodNullable ? (field.unwrap() as z.ZodType) : field;
  return inner instanceof z.ZodObject || inner instanceof z.ZodRecord || inner instanceof z.ZodArray;
}

export interface Row<T> {
  of: (value: T) => RowOf<T>;
  /** The columns the row writes, in the aggregate's field order. */
  columns: readonly (keyof T & string)[];
}

export function rowOf<S extends Shape>(
  aggregate: z.ZodObject<S>,
  spec: RowSpec<z.infer<z.ZodObject<S>>> = {},
): Row<z.infer<z.ZodObject<S>>> {
  const columns = Object.keys(aggregate.shape) as (keyof z.infer<z.ZodObject<S>> & string)[];
  const json = new Set(columns.filter((key) => isJsonField(aggregate.shape[key] as z.ZodType)));
  const defaults = (spec.defaults ?? {}) as Record<string, unknown>;
  return {
    columns,
    of: (value) => {
      const source = value as Record<string, unknown>;
      const row: Record<string, unknown> = {};
      for (const key of columns) {
        const field = source[key] ?? defaults[key];
        row[key] = field === undefined ? null : json.has(key) ? JSON.stringify(field) : field;
      }
      return row as RowOf<z.infer<z.ZodObject<S>>>;
    },
  };
}

import Ajv, { type ValidateFunction } from 'ajv';

/** JSON Schema (draft-07, ajv's default) for prompts' input_schema; remote $refs are not fetched, so they do not compile. */
const ajv = new Ajv({ allErrors: true, strict: false });
const compiled = new Map<string, ValidateFunction>();
/** Compiled schemas kept; the oldest goes first. */
const MAX_COMPILED = 500;

export type SchemaCheck = { ok: true; validate: ValidateFunction } | { ok: false; message: string };

export function compileSchema(schema: Record<string, unknown>): SchemaCheck {
  const key = JSON.stringify(schema);
  const known = compiled.get(key);
  if (known) return { ok: true, validate: known };
  if (!ajv.validateSchema(schema))
    return {
      ok: false,
      message: `is not a valid JSON Schema: ${ajv.errorsText(ajv.errors, { dataVar: 'input_schema' })}`,
    };
  let validate: ValidateFunction;
  try {
    validate = ajv.compile(schema);
  } catch (error) {
    return { ok: false, message: `cannot be compiled: ${(error as Error).message}` };
  } finally {
    // Ajv keeps every schema it compiled, keyed by the object; this service keeps its own bounded cache instead.
    ajv.removeSchema(schema);
  }
  if (compiled.size >= MAX_COMPILED) compiled.delete(compiled.keys().next().value!);
  compiled.set(key, validate);
  return { ok: true, validate };
}

export interface SchemaError {
  field: string;
  code: string;
  message: string;
}

export function schemaErrors(validate: ValidateFunction, prefix: string): SchemaError[] {
  return (validate.errors ?? []).map((error) => ({
    field: [prefix, ...error.instancePath.split('/').filter(Boolean)].join('.'),
    code: error.keyword,
    message: error.message ?? 'is not valid',
  }));
}

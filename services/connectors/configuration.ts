import { compileSchema, schemaErrors } from '../prompts/json-schema';

export interface ConfigurationError {
  field: string;
  code: string;
  message: string;
}

/** Where the config breaks the connector's configuration_schema (JSON Schema, checked with ajv); empty when it fits. */
export function configurationErrors(
  schema: Record<string, unknown>,
  config: Record<string, unknown>,
): ConfigurationError[] {
  const compiled = compileSchema(schema);
  if (!compiled.ok)
    return [
      { field: 'config', code: 'schema_invalid', message: `the connector's configuration_schema ${compiled.message}` },
    ];
  return compiled.validate(config) ? [] : schemaErrors(compiled.validate, 'config');
}

/** Why a configuration_schema cannot be one (for registering a connector), or undefined. */
export function schemaRefusal(schema: Record<string, unknown>): string | undefined {
  const compiled = compileSchema(schema);
  return compiled.ok ? undefined : compiled.message;
}

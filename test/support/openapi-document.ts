import { createRequire } from 'node:module';

/** The part of JSON Schema 2020-12 (as OpenAPI 3.1 uses it) that the generator and the validator read. */
export interface JsonSchema {
  $ref?: string;
  type?: string | string[];
  enum?: unknown[];
  const?: unknown;
  format?: string;
  pattern?: string;
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  exclusiveMaximum?: number;
  multipleOf?: number;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  additionalProperties?: boolean | JsonSchema;
  items?: JsonSchema;
  minItems?: number;
  maxItems?: number;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  allOf?: JsonSchema[];
  default?: unknown;
}

export interface Parameter {
  name: string;
  in: 'path' | 'query' | 'header' | 'cookie';
  required?: boolean;
  schema: JsonSchema;
}

interface MediaType {
  schema?: JsonSchema;
}

interface ResponseObject {
  description: string;
  content?: Record<string, MediaType>;
  headers?: Record<string, unknown>;
}

interface OperationObject {
  operationId?: string;
  security?: Array<Record<string, string[]>>;
  parameters?: Parameter[];
  requestBody?: { required?: boolean; content: Record<string, MediaType> };
  responses: Record<string, ResponseObject>;
}

export interface OpenApiDocument {
  openapi: string;
  paths: Record<string, Record<string, OperationObject>>;
  components?: { schemas?: Record<string, JsonSchema> };
}

/** One operation of the document, with what a caller needs to build a request for it. */
export interface Operation {
  /** "POST /v1/orch/routing (createRouting)" */
  label: string;
  method: string;
  path: string;
  /** The bearer scope it requires; undefined when it is public. */
  scope: string | undefined;
  parameters: Parameter[];
  /** The JSON request body, when the operation takes one. */
  body: { required: boolean; schema: JsonSchema; pointer: string } | undefined;
  responses: Record<string, ResponseObject>;
  /** JSON pointer of the operation object in the document. */
  pointer: string;
}

const METHODS = ['get', 'put', 'post', 'delete', 'patch'];

const pointerSegment = (segment: string) => segment.replaceAll('~', '~0').replaceAll('/', '~1');

export function pointerOf(...segments: string[]): string {
  return `#/${segments.map(pointerSegment).join('/')}`;
}

export function childPointer(pointer: string, ...segments: string[]): string {
  return [pointer, ...segments.map(pointerSegment)].join('/');
}

export function operationsOf(document: OpenApiDocument): Operation[] {
  return Object.entries(document.paths).flatMap(([path, item]) =>
    METHODS.filter((method) => item[method]).map((method) => {
      const operation = item[method]!;
      const json = operation.requestBody?.content['application/json'];
      return {
        label: `${method.toUpperCase()} ${path}${operation.operationId ? ` (${operation.operationId})` : ''}`,
        method: method.toUpperCase(),
        path,
        scope: operation.security?.flatMap((requirement) => requirement.bearerAuth ?? [])[0],
        parameters: operation.parameters ?? [],
        body: json?.schema
          ? {
              required: operation.requestBody?.required ?? false,
              schema: json.schema,
              pointer: pointerOf('paths', path, method, 'requestBody', 'content', 'application/json', 'schema'),
            }
          : undefined,
        responses: operation.responses,
        pointer: pointerOf('paths', path, method),
      };
    }),
  );
}

/** Follows local references (#/components/...) until it reaches a schema that is not one. */
export function resolveSchema(document: OpenApiDocument, schema: JsonSchema): JsonSchema {
  let current = schema;
  for (let hops = 0; current.$ref !== undefined; hops += 1) {
    if (hops > 32 || !current.$ref.startsWith('#/')) throw new Error(`Cannot resolve ${current.$ref}`);
    const target = current.$ref
      .slice(2)
      .split('/')
      .map((segment) => decodeURIComponent(segment).replaceAll('~1', '/').replaceAll('~0', '~'))
      .reduce<unknown>((node, segment) => (node as Record<string, unknown> | undefined)?.[segment], document);
    if (!target) throw new Error(`Cannot resolve ${current.$ref}`);
    current = target;
  }
  return current;
}

/** RFC 3339 date-time: the offset's hours 00..23 and minutes 00..59, the date a real one. */
function isDateTime(value: string): boolean {
  const match = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(?:\.\d+)?(?:[Zz]|([+-])(\d{2}):(\d{2}))$/.exec(
    value,
  );
  if (!match) return false;
  const [year, month, day, hour, minute, second, , offsetHour, offsetMinute] = match.slice(1).map<number>(Number);
  const daysInMonth = new Date(Date.UTC(year!, month, 0)).getUTCDate();
  return (
    month! >= 1 &&
    month! <= 12 &&
    day! >= 1 &&
    day! <= daysInMonth &&
    hour! <= 23 &&
    minute! <= 59 &&
    second! <= 60 &&
    (match[7] === undefined || (offsetHour! <= 23 && offsetMinute! <= 59))
  );
}

/**
 * The formats the document uses, as the validator checks them. The generator produces values for the same
 * names; a format missing here fails loudly rather than being ignored.
 */
export const FORMATS: Record<string, (value: string) => boolean> = {
  'date-time': isDateTime,
  date: (value) => /^\d{4}-\d{2}-\d{2}$/.test(value) && isDateTime(`${value}T00:00:00Z`),
  uri: (value) => /^[A-Za-z][A-Za-z0-9+.-]*:[^\s]*$/.test(value) && URL.canParse(value),
  uuid: (value) => /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(value),
  email: (value) => /^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(value),
};

/*
 * ajv 8 (JSON Schema 2020-12, which OpenAPI 3.1 uses) is installed only as a dependency of
 * @apidevtools/swagger-parser; the top-level `ajv` is eslint's ajv 6, which knows only draft-07.
 */
const requireFromSwaggerParser = createRequire(require.resolve('@apidevtools/swagger-parser'));
const { default: Ajv2020 } = requireFromSwaggerParser('ajv/dist/2020') as { default: new (options: object) => Ajv };

/** What this file uses of ajv 8 (its types are not resolvable from here either). */
interface Ajv {
  addVocabulary(keywords: string[]): void;
  addSchema(schema: object, key: string): void;
  compile(schema: object): ValidateFunction;
}
interface ValidateFunction {
  (value: unknown): boolean;
  errors?: ErrorObject[] | null;
}
interface ErrorObject {
  keyword: string;
  instancePath: string;
  message?: string;
  params: Record<string, unknown>;
}

const DOCUMENT_ID = 'https://handoff.test/openapi.json';

export interface Validation {
  valid: boolean;
  errors: string;
}

/** Validates values against any schema in the document, found by its JSON pointer, with references resolved. */
export function createDocumentValidator(document: OpenApiDocument) {
  const ajv = new Ajv2020({
    allErrors: true,
    strict: true,
    strictTypes: false,
    strictRequired: false,
    validateSchema: false,
    formats: FORMATS,
  });
  // OpenAPI's own keywords: those of the schema objects, and those of the document around them.
  ajv.addVocabulary([
    'example',
    'discriminator',
    'xml',
    'externalDocs',
    'openapi',
    'info',
    'servers',
    'paths',
    'components',
    'tags',
    'security',
    'webhooks',
    'jsonSchemaDialect',
  ]);
  ajv.addSchema(document, DOCUMENT_ID);
  const compiled = new Map<string, ValidateFunction>();

  return {
    validate(pointer: string, value: unknown): Validation {
      let validate = compiled.get(pointer);
      if (!validate) {
        const fragment = pointer.slice(1).split('/').map(encodeURIComponent).join('/');
        validate = ajv.compile({ $ref: `${DOCUMENT_ID}#${fragment}` });
        compiled.set(pointer, validate);
      }
      const valid = validate(value);
      return { valid, errors: valid ? '' : describeErrors(validate.errors ?? []) };
    },
  };
}

export type DocumentValidator = ReturnType<typeof createDocumentValidator>;

function describeErrors(errors: ErrorObject[]): string {
  return errors
    .slice(0, 8)
    .map(
      (error) =>
        `${error.instancePath || '(root)'} ${error.message ?? error.keyword}${error.keyword === 'additionalProperties' ? ` (${String(error.params.additionalProperty)})` : ''}`,
    )
    .join('; ');
}

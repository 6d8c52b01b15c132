import { getRefId, OpenApiGeneratorV31, type OpenAPIRegistry } from '@asteasolutions/zod-to-openapi';
import express, { type Express } from 'express';
import path from 'node:path';
import { Problem, PROBLEM_TYPES, problemTypeUri, remediationSteps, type ProblemCode } from './problem';
import type { ApiBuilder } from './route';
import { z } from './schemas/zod';

const WRAPPERS = new Set(['optional', 'nullable', 'default', 'prefault', 'readonly', 'nonoptional']);

/** The schema under its wrappers: a named schema made optional or described again is still the same schema. */
function core(schema: z.ZodType): object {
  let def = schema._zod.def as { type: string; innerType?: z.ZodType };
  while (WRAPPERS.has(def.type) && def.innerType) def = def.innerType._zod.def;
  return def;
}

/**
 * The names given to more than one schema that the generator would render differently. It renders every use
 * of a name as the first schema it meets, so a second one would be documented silently wrong.
 */
export function schemaNameClashes(definitions: OpenAPIRegistry['definitions']): string[] {
  const named = new Map<string, Map<object, z.ZodType>>();
  const seen = new Set<object>();
  const visit = (value: unknown): void => {
    if (typeof value !== 'object' || value === null || seen.has(value)) return;
    seen.add(value);
    if (value instanceof z.ZodType) {
      const name = getRefId(value);
      if (name) {
        const variants = named.get(name) ?? new Map<object, z.ZodType>();
        if (!variants.has(core(value))) variants.set(core(value), value);
        named.set(name, variants);
      }
      const def = value._zod.def as { type: string; getter?: () => unknown };
      if (def.type === 'lazy' && def.getter) visit(def.getter());
      visit(def);
      return;
    }
    if ('_zod' in value) return;
    for (const item of Object.values(value)) visit(item);
  };
  visit(definitions);
  const rendered = (name: string, schema: z.ZodType) =>
    JSON.stringify(
      new OpenApiGeneratorV31([{ type: 'schema', schema }]).generateComponents().components?.schemas?.[name],
    );
  return [...named]
    .filter(([name, variants]) => new Set([...variants.values()].map((schema) => rendered(name, schema))).size > 1)
    .map(([name]) => name);
}

export function openApiDocument(api: ApiBuilder, serverUrl: string) {
  const clashes = schemaNameClashes(api.registry.definitions);
  if (clashes.length > 0)
    throw new Error(`Different schemas share the OpenAPI name(s) ${clashes.join(', ')}: give each its own name`);
  return new OpenApiGeneratorV31(api.registry.definitions).generateDocument({
    openapi: '3.1.0',
    info: {
      title: 'Handoff API',
      version: '1.0.0',
      description:
        'Decides, task by task, whether an AI agent acts alone, a human acts, or both collaborate, and sees the decision through. ' +
        'Errors are RFC 9457 problems with remediation steps (and an incident_id on a 5xx); mutating calls accept Idempotency-Key. ' +
        'Every operation is counted in a rate-limit category (x-rate-limit-category), per caller: per principal, or per client address ' +
        'where no credentials are needed. Each of its responses carries X-RateLimit-Limit, -Remaining, -Reset and -Resource, including ' +
        'refusals before its body is read (413, 415). Operational endpoints (liveness, readiness, platform health, JWKS, this document, ' +
        'the docs page and problem types) are not counted and carry none, so that they answer whatever the load; neither do answers to ' +
        'no operation (404 for an unknown path, 405, CORS preflight).',
    },
    servers: [{ url: serverUrl }],
  });
}

const SWAGGER_UI_DIR = path.dirname(require.resolve('swagger-ui-dist/package.json'));

const DOCS_PAGE = `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>Handoff API</title><link rel="stylesheet" href="/docs/assets/swagger-ui.css"></head>
<body><div id="ui"></div>
<script src="/docs/assets/swagger-ui-bundle.js"></script>
<script src="/docs/init.js"></script>
</body></html>`;

const INIT_SCRIPT = `window.ui = SwaggerUIBundle({ url: '/openapi.json', dom_id: '#ui', deepLinking: true });`;

const ProblemTypeSchema = z
  .object({
    type: z.string(),
    title: z.string(),
    status: z.number().int(),
    remediation: z.array(z.object({ step: z.number().int(), description: z.string() })),
  })
  .openapi('ProblemType');

/** /openapi.json, an offline docs page (Swagger UI served from the package), and /problems/{code}. */
export function mountDocs(app: Express, api: ApiBuilder, serverUrl: string): void {
  let document: ReturnType<typeof openApiDocument> | undefined;
  const operational = { tags: ['Documentation'], auth: 'public' as const, rateLimit: null };
  api.route({
    ...operational,
    method: 'get',
    path: '/openapi.json',
    operationId: 'getOpenApiDocument',
    summary: 'This OpenAPI 3.1 document',
    responses: { 200: { description: 'The document', schema: z.record(z.string(), z.unknown()) } },
    handler: () => {
      document ??= openApiDocument(api, serverUrl);
      return { status: 200, body: document };
    },
  });
  api.route({
    ...operational,
    method: 'get',
    path: '/docs',
    operationId: 'getDocsPage',
    summary: 'The API reference (Swagger UI), served offline',
    responses: { 200: { description: 'The page', contentType: 'text/html', schema: z.string() } },
    handler: () => ({ status: 200, text: { contentType: 'text/html; charset=utf-8', content: DOCS_PAGE } }),
  });
  api.route({
    ...operational,
    method: 'get',
    path: '/docs/init.js',
    operationId: 'getDocsScript',
    summary: 'The script that starts the docs page',
    responses: { 200: { description: 'The script', contentType: 'application/javascript', schema: z.string() } },
    handler: () => ({
      status: 200,
      text: { contentType: 'application/javascript; charset=utf-8', content: INIT_SCRIPT },
    }),
  });
  api.route({
    ...operational,
    method: 'get',
    path: '/problems/{code}',
    operationId: 'getProblemType',
    summary: 'A problem type: the type URI of a problem body',
    request: { params: z.object({ code: z.string() }) },
    responses: {
      200: { description: 'Its title, status and remediation', schema: ProblemTypeSchema },
      404: { description: 'not_found: no such problem type' },
    },
    handler: ({ params }) => {
      if (!Object.hasOwn(PROBLEM_TYPES, params.code)) throw new Problem('not_found', `No problem type ${params.code}`);
      const code = params.code as ProblemCode;
      const { title, status } = PROBLEM_TYPES[code];
      return { status: 200, body: { type: problemTypeUri(code), title, status, remediation: remediationSteps(code) } };
    },
  });
  app.use('/docs/assets', express.static(SWAGGER_UI_DIR, { index: false, maxAge: '1h' }));
}

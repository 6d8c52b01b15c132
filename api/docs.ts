import { OpenApiGeneratorV31 } from '@asteasolutions/zod-to-openapi';
import express, { type Express } from 'express';
import path from 'node:path';
import { PROBLEM_TYPES, remediationSteps, type ProblemCode } from './problem';
import type { ApiBuilder } from './route';

export function openApiDocument(api: ApiBuilder, serverUrl: string) {
  return new OpenApiGeneratorV31(api.registry.definitions).generateDocument({
    openapi: '3.1.0',
    info: {
      title: 'Handoff API',
      version: '1.0.0',
      description:
        'Decides, task by task, whether an AI agent acts alone, a human acts, or both collaborate, and sees the decision through. ' +
        'Errors are RFC 9457 problems; mutating calls accept Idempotency-Key; every rate-limited response carries X-RateLimit-* headers.',
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

/** /openapi.json, an offline docs page (Swagger UI served from the package), and /problems/{code}. */
export function mountDocs(app: Express, api: ApiBuilder, serverUrl: string): void {
  let document: ReturnType<typeof openApiDocument> | undefined;
  app.get('/openapi.json', (_req, res) => {
    document ??= openApiDocument(api, serverUrl);
    res.json(document);
  });
  app.get('/docs', (_req, res) => {
    res.type('html').send(DOCS_PAGE);
  });
  app.get('/docs/init.js', (_req, res) => {
    res.type('application/javascript').send(INIT_SCRIPT);
  });
  app.use('/docs/assets', express.static(SWAGGER_UI_DIR, { index: false, maxAge: '1h' }));
  app.get('/problems/:code', (req, res, next) => {
    const code = req.params.code as ProblemCode;
    const type = Object.hasOwn(PROBLEM_TYPES, code) ? PROBLEM_TYPES[code] : undefined;
    if (!type) return next();
    res.json({ type: `/problems/${code}`, title: type.title, status: type.status, remediation: remediationSteps(code) });
  });
}

import type { Request } from 'express';

/**
 * The template of the route that answered (`/v1/orch/routing/{routing_id}`, as the OpenAPI document writes it),
 * never the raw path, so that metric labels and span names stay few; `unmatched` when no route did (404s).
 */
export function routeTemplateOf(req: Request): string {
  const route = req.route as { path?: unknown } | undefined;
  if (typeof route?.path !== 'string') return 'unmatched';
  return `${req.baseUrl}${route.path}`.replace(/:(\w+)/g, '{$1}');
}

/**
 * A router's routes share their tags, scope and rate-limit category; a group states them once and each route
 * states only what differs (any of the three it gives wins). The document is what api.route would make.
 *
 *   const agents = routeGroup(api, { tags: ['Agents'], auth: 'orch:read', rateLimit: 'agent-monitoring' });
 *   agents.route({ method: 'patch', path: '/v1/orch/agents/{agent_id}', operationId: 'updateAgent', summary,
 *     auth: 'orch:admin', request: { params, body }, responses, handler });
 *   agents.list({ path: '/v1/orch/agents', operationId, summary, query, page, sort, list, view }); // listRoute
 *   agents.get({ path: '/v1/orch/agents/{agent_id}', operationId, summary, params: AgentParamsSchema,
 *     found: { description: 'The agent', schema: AgentSchema },
 *     missing: { code: 'agent_not_found', detail: ({ params }) => `No agent ${params.agent_id}` },
 *     find: ({ params, principal }) => findAgent(db, principal.organization_id, params.agent_id), view: renderAgent });
 * A public route (auth 'public') is declared with api.route itself.
 */
import type { ZodType } from 'zod';
import type { Scope } from '../services/identity/scopes';
import { getRoute, type GetRouteSpec } from './get-route';
import { listRoute, type ListQuery, type ListRouteSpec } from './list-route';
import type { RateLimitCategory } from './middleware/rate-limit';
import type { ApiBuilder, ResourceScope, RouteSpec } from './route';

export interface RouteDefaults {
  tags: string[];
  auth: Scope | ResourceScope;
  rateLimit: RateLimitCategory;
}

/** A spec with the group's fields made optional. */
type InGroup<S> = Omit<S, keyof RouteDefaults> & Partial<RouteDefaults>;

export interface RouteGroup {
  route<
    B extends ZodType | undefined = undefined,
    Q extends ZodType | undefined = undefined,
    P extends ZodType | undefined = undefined,
    H extends ZodType | undefined = undefined,
    R = undefined,
  >(
    spec: InGroup<RouteSpec<B, Q, P, H, Scope | ResourceScope, R>>,
  ): void;
  list<Q extends ListQuery, P extends ZodType | undefined = undefined, Row = unknown>(
    spec: InGroup<ListRouteSpec<Q, P, Row>>,
  ): void;
  get<Q extends ZodType | undefined = undefined, P extends ZodType | undefined = undefined, Row = unknown>(
    spec: InGroup<GetRouteSpec<Q, P, Row>>,
  ): void;
}

export function routeGroup(api: ApiBuilder, defaults: RouteDefaults): RouteGroup {
  return {
    route: (spec) => api.route({ ...defaults, ...spec }),
    list: (spec) => listRoute(api, { ...defaults, ...spec }),
    get: (spec) => getRoute(api, { ...defaults, ...spec }),
  };
}

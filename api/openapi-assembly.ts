import { getOpenApiMetadata, OpenAPIRegistry, type RouteConfig } from '@asteasolutions/zod-to-openapi';
import type { ZodType } from 'zod';
import type { Scope } from '../services/identity/scopes';
import { capabilityOf } from './capabilities';
import { RATE_LIMIT_CATEGORIES, type RateLimitCategory } from './middleware/rate-limit';
import { IdempotencyKeySchema, ProblemSchema } from './schemas/common';
import { z } from './schemas/zod';

export type Method = 'get' | 'post' | 'put' | 'patch' | 'delete';

/**
 * A scope that names the resource (prompt:read:{key}): the route requires an authenticated caller, and its
 * handler checks the grant once it knows the resource. perResource is the scope as the document shows it.
 */
export interface ResourceScope {
  perResource: string;
}

/** auth: the scope the caller needs, or 'public'. */
export type RouteAuth = Scope | ResourceScope | 'public';

export interface ResponseSpec {
  description: string;
  schema?: ZodType;
  /** The media type of schema: application/json by default, application/problem+json for an error. */
  contentType?: string;
  /** The same answer in other media types, chosen by Accept (an HTML page beside the JSON). */
  alternatives?: Record<string, ZodType>;
  headers?: Record<string, { description: string }>;
}

/** What the document says of a route: its spec without the handler. */
export interface OperationSpec {
  method: Method;
  /** OpenAPI form: /v1/orch/routing/{routing_id} */
  path: string;
  operationId: string;
  summary: string;
  description?: string;
  tags: string[];
  auth: RouteAuth;
  rateLimit: RateLimitCategory | null;
  /** Idempotency-Key support on a mutating route; off where the response holds a secret that must not be stored. */
  idempotency?: boolean;
  request?: {
    body?: ZodType | undefined;
    query?: ZodType | undefined;
    params?: ZodType | undefined;
    headers?: ZodType | undefined;
    bodyTypes?: string[];
  };
  responses: Record<number, ResponseSpec>;
}

const MUTATING: Method[] = ['post', 'put', 'patch', 'delete'];

const PROBLEM_JSON = 'application/problem+json';

/** Response headers documented once under components/headers, and referred to by each response. */
const integer = { type: 'integer' as const };
const RESPONSE_HEADERS = {
  'X-Request-ID': {
    description: 'The request id: the caller’s X-Request-ID when it is a sane token, else one made here',
    schema: { type: 'string' as const },
  },
  'X-RateLimit-Limit': { description: 'Requests allowed per window in the operation’s category', schema: integer },
  'X-RateLimit-Remaining': { description: 'Requests left in the current window', schema: { ...integer, minimum: 0 } },
  'X-RateLimit-Reset': { description: 'When the current window ends (Unix time, seconds)', schema: integer },
  'X-RateLimit-Resource': {
    description: 'The category the call was counted in',
    schema: { type: 'string' as const, enum: [...RATE_LIMIT_CATEGORIES] },
  },
  'Retry-After': { description: 'Seconds to wait before retrying', schema: { ...integer, minimum: 1 } },
  'Idempotent-Replayed': {
    description: 'true when this is the stored answer to an earlier request with the same Idempotency-Key',
    schema: { type: 'string' as const, enum: ['true'] },
  },
};
type ResponseHeader = keyof typeof RESPONSE_HEADERS;

const RATE_LIMIT_HEADERS: ResponseHeader[] = [
  'X-RateLimit-Limit',
  'X-RateLimit-Remaining',
  'X-RateLimit-Reset',
  'X-RateLimit-Resource',
];

function headerRefs(names: ResponseHeader[]): Record<string, { $ref: string }> {
  return Object.fromEntries(names.map((name) => [name, { $ref: `#/components/headers/${name}` }]));
}

interface StandardProblem {
  status: number;
  description: string;
  headers?: ResponseHeader[];
}

/** The problems an operation of this kind may answer, whatever its handler does. */
function standardProblems(spec: {
  auth: RouteAuth;
  rateLimit: RateLimitCategory | null;
  body: boolean;
  idempotent: boolean;
}): StandardProblem[] {
  const problems: StandardProblem[] = [
    {
      status: 400,
      description:
        'validation_failed (errors[] names each field, with what it expected and received), or malformed_json',
    },
  ];
  if (spec.auth !== 'public') {
    problems.push({ status: 401, description: 'unauthorized: no bearer token, or one that is not valid' });
    problems.push({
      status: 403,
      description:
        'insufficient_scope: the token lacks the scope (or, for a delegation token, the capability in x-capability, at a high enough risk_level) of this operation',
    });
  }
  if (spec.idempotent) {
    problems.push({
      status: 409,
      description:
        'idempotency_key_reused: the Idempotency-Key was first used with a different request; ' +
        'idempotency_request_in_flight: the first request with this key has not finished (retry after Retry-After)',
      headers: ['Retry-After'],
    });
  }
  if (spec.body) {
    problems.push({ status: 413, description: 'payload_too_large: the body is over the deployment’s BODY_LIMIT' });
    problems.push({
      status: 415,
      description: 'unsupported_media_type: the body is not in a media type this operation takes',
    });
  }
  if (spec.rateLimit)
    problems.push({
      status: 429,
      description: `rate_limit_exceeded: the ${spec.rateLimit} limit of this window is used up`,
      headers: ['Retry-After'],
    });
  problems.push({
    status: 500,
    description:
      'internal_error: shows only request_id and incident_id; the error log line carries the same incident_id',
  });
  problems.push({
    status: 503,
    description:
      'service_unavailable: a dependency (PostgreSQL, Temporal) is down or did not answer within the request’s deadline; retry after Retry-After (with the same Idempotency-Key)',
    headers: ['Retry-After'],
  });
  return problems;
}

/** A registry holding the components every operation refers to: the Problem body, bearer auth, the response headers. */
export function createApiRegistry(): OpenAPIRegistry {
  const registry = new OpenAPIRegistry();
  registry.register('Problem', ProblemSchema);
  registry.registerComponent('securitySchemes', 'bearerAuth', {
    type: 'http',
    scheme: 'bearer',
    description:
      'An access token from POST /oauth/token (client credentials), a personal access token (hnd_pat_…), or a delegation token (dt+jwt, from POST /v1/delegation-tokens/exchange) whose capabilities include the operation’s x-capability.',
  });
  for (const [name, header] of Object.entries(RESPONSE_HEADERS)) registry.registerComponent('headers', name, header);
  return registry;
}

/** The declared answers, with the problems every operation of its kind may answer and the headers each carries. */
function operationResponses(spec: OperationSpec, idempotent: boolean): RouteConfig['responses'] {
  const declared = new Map<string, ResponseSpec & { refs?: ResponseHeader[] }>(Object.entries(spec.responses));
  for (const problem of standardProblems({
    auth: spec.auth,
    rateLimit: spec.rateLimit,
    body: spec.request?.body !== undefined,
    idempotent,
  })) {
    const own = declared.get(String(problem.status));
    // An operational endpoint whose 503 has a body of its own (readiness, health) answers that one.
    if (problem.status === 503 && own?.schema) continue;
    // A status the route declares too may mean either: both are documented.
    declared.set(String(problem.status), {
      ...own,
      description: own ? `${own.description}; or ${problem.description}` : problem.description,
      refs: problem.headers ?? [],
    });
  }
  const responses: RouteConfig['responses'] = {};
  for (const [status, response] of declared) {
    const error = Number(status) >= 400;
    const schema = response.schema ?? (error ? ProblemSchema : undefined);
    const content = {
      ...(schema || response.contentType
        ? { [response.contentType ?? (error ? PROBLEM_JSON : 'application/json')]: { schema: schema ?? {} } }
        : {}),
      ...Object.fromEntries(
        Object.entries(response.alternatives ?? {}).map(([type, alternative]) => [type, { schema: alternative }]),
      ),
    };
    const refs: ResponseHeader[] = [
      'X-Request-ID',
      ...(spec.rateLimit ? RATE_LIMIT_HEADERS : []),
      ...(response.refs ?? []),
      ...(idempotent && Number(status) < 300 ? ['Idempotent-Replayed' as const] : []),
    ];
    responses[status] = {
      description: response.description,
      headers: { ...response.headers, ...headerRefs(refs) },
      ...(Object.keys(content).length > 0 ? { content } : {}),
    };
  }
  return responses;
}

export function openApiOperation(spec: OperationSpec): RouteConfig {
  const idempotent = isIdempotent(spec);
  const responses = operationResponses(spec, idempotent);
  const unmetered =
    'Not rate limited: an operational endpoint answers whatever the load, without X-RateLimit-* headers.';
  const description = spec.rateLimit ? spec.description : [spec.description, unmetered].filter(Boolean).join(' ');
  const body = spec.request?.body;
  return {
    method: spec.method,
    path: spec.path,
    operationId: spec.operationId,
    summary: spec.summary,
    ...(description ? { description } : {}),
    tags: spec.tags,
    ...(spec.auth !== 'public'
      ? { security: [{ bearerAuth: [typeof spec.auth === 'string' ? spec.auth : spec.auth.perResource] }] }
      : {}),
    request: {
      ...(body
        ? {
            body: {
              required: true,
              content: Object.fromEntries(
                (spec.request?.bodyTypes ?? ['application/json']).map((type) => [type, { schema: body }]),
              ),
            },
          }
        : {}),
      ...(spec.request?.query ? { query: spec.request.query as never } : {}),
      ...(spec.request?.params ? { params: spec.request.params as never } : {}),
      ...(spec.request?.headers || idempotent
        ? { headers: documentedHeaders(spec.request?.headers, idempotent) as never }
        : {}),
    },
    responses,
    ...(spec.rateLimit ? { 'x-rate-limit-category': spec.rateLimit } : {}),
    ...(spec.auth !== 'public' && capabilityOf(spec.method, spec.path)
      ? { 'x-capability': capabilityOf(spec.method, spec.path) }
      : {}),
  };
}

/** Idempotency-Key applies to an authenticated mutating route unless the route turns it off. */
export function isIdempotent(spec: { auth: RouteAuth; method: Method; idempotency?: boolean }): boolean {
  return spec.auth !== 'public' && MUTATING.includes(spec.method) && spec.idempotency !== false;
}

const KEY_FORMAT = 'Visible ASCII, 1 to 255 characters.';
const idempotencyKeySchema = IdempotencyKeySchema.optional().openapi({
  description: `Makes a retry safe for 24 h: a replay returns the first response with Idempotent-Replayed: true. ${KEY_FORMAT}`,
});

/** The route's own headers, with Idempotency-Key (in the one format the middleware takes) beside them on a mutating route. */
function documentedHeaders(own: ZodType | undefined, idempotent: boolean): ZodType | undefined {
  if (!idempotent) return own;
  if (!own) return z.object({ 'idempotency-key': idempotencyKeySchema });
  if (!(own instanceof z.ZodObject)) return own;
  // The route may say what the key means to it; the format is the middleware's.
  const ownKey = own.shape['idempotency-key'] as ZodType | undefined;
  const meaning = ownKey ? (getOpenApiMetadata(ownKey).description as string | undefined) : undefined;
  return own.extend({
    'idempotency-key': meaning
      ? idempotencyKeySchema.openapi({ description: `${meaning}. ${KEY_FORMAT}` })
      : idempotencyKeySchema,
  });
}

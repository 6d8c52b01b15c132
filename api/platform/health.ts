import {
  checkOrganization,
  checkPlatform,
  platformWorkload,
  type HealthDeps,
} from '../../services/health/platform-health';
import type { ApiBuilder } from '../route';
import { routeGroup, type RouteGroup } from '../route-group';
import { DidSchema } from '../schemas/common';
import { z } from '../schemas/zod';

const HealthCheckSchema = z.object({
  name: z.enum(['postgres', 'temporal', 'workflow_pollers', 'activity_pollers', 'ledger_sealing_lag', 'escalation']),
  status: z.enum(['pass', 'fail']),
  latency_ms: z.number().int(),
  detail: z.string().optional(),
});
const BucketSchema = z.enum(['healthy', 'degraded', 'unhealthy']).openapi({
  description:
    'unhealthy: Postgres or Temporal down; degraded: no worker polls the task queue, or ledger sealing is behind',
});

const OrgHealthSchema = z
  .object({
    bucket: BucketSchema,
    checks: z.array(HealthCheckSchema),
    escalation_id: z.string().nullable().openapi({
      description: 'When not healthy: the item raised in the organization’s escalation queue (one per hour)',
    }),
    checked_at: z.string(),
  })
  .openapi('OrganizationHealth');

const PlatformHealthSchema = z
  .object({ status: BucketSchema, checks: z.array(HealthCheckSchema), checked_at: z.string() })
  .openapi('PlatformHealth');

const PlatformStatusSchema = z
  .object({
    status: BucketSchema,
    task_queue: z.string(),
    checks: z.array(HealthCheckSchema),
    workload: z
      .object({
        pending_approvals: z.number().int(),
        queued_executions: z.number().int(),
        processing_executions: z.number().int(),
        running_workflows: z.number().int(),
      })
      .nullable()
      .openapi({ description: 'null while Postgres does not answer' }),
    checked_at: z.string(),
  })
  .openapi('PlatformStatus');

/** An organization's health check (raising an escalation when unhealthy), the platform's public health, and its status. */
export function registerPlatformHealthRoutes(api: ApiBuilder, deps: HealthDeps): void {
  const health = routeGroup(api, { tags: ['Platform health'], auth: 'platform:read', rateLimit: 'default' });
  health.route({
    method: 'post',
    path: '/v1/health/check',
    operationId: 'checkOrganizationHealth',
    summary: 'Health check for an organization',
    description:
      'Runs the platform checks; when the platform is not healthy, raises an item in the organization’s escalation queue and returns its id.',
    auth: 'platform:write',
    request: { body: z.object({ orgDid: DidSchema }).strict().openapi('OrganizationHealthRequest') },
    responses: { 200: { description: 'The checks', schema: OrgHealthSchema } },
    handler: async ({ body, principal }) => {
      const now = new Date();
      return {
        status: 200,
        body: {
          ...(await checkOrganization(deps, principal.organization_id, body.orgDid, now)),
          checked_at: now.toISOString(),
        },
      };
    },
  });
  registerPublicHealth(api, deps);
  registerStatus(health, deps);
}

function registerPublicHealth(api: ApiBuilder, deps: HealthDeps): void {
  api.route({
    method: 'get',
    path: '/v1/platform/health',
    operationId: 'getPlatformHealth',
    summary: 'Overall platform health: Postgres, Temporal and the workers polling the task queue',
    tags: ['Platform health'],
    auth: 'public',
    rateLimit: null,
    responses: {
      200: { description: 'Healthy or degraded', schema: PlatformHealthSchema },
      503: { description: 'Unhealthy', schema: PlatformHealthSchema },
    },
    handler: async () => {
      const { bucket, checks } = await checkPlatform(deps);
      return {
        status: bucket === 'unhealthy' ? 503 : 200,
        body: { status: bucket, checks, checked_at: new Date().toISOString() },
      };
    },
  });
}

function registerStatus(health: RouteGroup, deps: HealthDeps): void {
  health.route({
    method: 'get',
    path: '/v1/platform/status',
    operationId: 'getPlatformStatus',
    summary:
      'Platform status: the health checks and what waits (pending approvals, queued and processing executions, running workflows)',
    responses: { 200: { description: 'The status', schema: PlatformStatusSchema } },
    handler: async ({ principal }) => {
      const [{ bucket, checks }, workload] = await Promise.all([
        checkPlatform(deps),
        platformWorkload(deps.db, principal.organization_id).catch(() => null),
      ]);
      return {
        status: 200,
        body: { status: bucket, task_queue: deps.taskQueue, checks, workload, checked_at: new Date().toISOString() },
      };
    },
  });
}

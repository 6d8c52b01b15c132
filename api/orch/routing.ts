import { findRoutingById, type RoutingRow } from '../../db/routings';
import { HUMAN_ACT_CAPABILITIES } from '../../domain/identity/capabilities';
import { routingProgress } from '../../domain/routing/progress';
import { routingDecided } from '../../domain/tasks/decision-waits';
import { resourceId } from '../../lib/ids';
import type { Logger } from '../../lib/logger';
import { submitRouting, type RoutingServiceDeps } from '../../services/routing/submit';
import { resolveRoutingAs } from '../../services/routing/resolution';
import { MAX_DECISION_WAIT_SECONDS, type DecisionWaits } from '../../services/decisions/waits';
import { readAfterWait } from '../decision-wait';
import { Problem } from '../problem';
import type { ApiBuilder } from '../route';
import { routeGroup, type RouteGroup } from '../route-group';
import { registerRoutingAssignmentRoutes } from './routing-assignment';
import {
  assigneeView,
  ResolveRoutingRequestSchema,
  RoutingDecisionSchema,
  RoutingIdParamsSchema,
  RoutingRequestSchema,
  RoutingResolutionSchema,
  RoutingStatusSchema,
} from '../schemas/routing';
import { DecisionWaitQuerySchema } from '../schemas/decision-wait';
import type { z } from '../schemas/zod';

export type RoutingDeps = RoutingServiceDeps & { logger: Logger; decisions: DecisionWaits };

/** When the human who holds the routing is expected to answer. */
function estimatedCompletion(row: RoutingRow): string | null {
  if (row.status !== 'in_progress' || !row.assigned_at || row.estimated_response_time === null) return null;
  return new Date(row.assigned_at.getTime() + row.estimated_response_time * 1000).toISOString();
}

/** The routing's status view: the fields it shows of the routing (in the aggregate's order), and its progress. */
export function toRoutingStatus(row: RoutingRow): z.output<typeof RoutingStatusSchema> {
  const { assigned_to, resolution } = row;
  return {
    routing_id: row.routing_id,
    status: row.status,
    decision: row.decision,
    reason: row.reason,
    escalation_level: row.escalation_level,
    assigned_to: assigned_to && assigneeView(assigned_to),
    created_at: row.created_at.toISOString(),
    assigned_at: row.assigned_at?.toISOString() ?? null,
    progress: routingProgress(row.status, row.decision ?? undefined),
    estimated_completion: estimatedCompletion(row),
    escalation_chain: row.escalation_chain,
    resolution: resolution && {
      reviewer_did: resolution.reviewer_did,
      outcome: resolution.outcome,
      comment: resolution.comment,
      resolved_at: resolution.resolved_at,
    },
  };
}

/** A routing's assignment by an admin, its request, its read (waiting for its decision if asked) and its resolution. */
export function registerRoutingRoutes(api: ApiBuilder, deps: RoutingDeps): void {
  const routing = routeGroup(api, { tags: ['Routing'], auth: 'orch:write', rateLimit: 'routing-requests' });
  registerRoutingAssignmentRoutes(api, deps);
  registerRoutingRequest(routing, deps);
  registerRoutingRead(routing, deps);
  registerRoutingResolution(routing, deps);
}

function registerRoutingRequest(routing: RouteGroup, deps: RoutingDeps): void {
  routing.route({
    method: 'post',
    path: '/v1/orch/routing',
    operationId: 'createRouting',
    summary: 'Route a task to an AI agent, a human, or both',
    description:
      'Decides synchronously (Fourth Law: below 0.70 confidence a human takes over) and returns the decision; ' +
      'a routing that needs a human then waits for their resolution, moving up the escalation chain on timeouts. ' +
      'When no available reviewer holds the required capabilities, the routing is not dropped: it waits in the queue (status queued, ' +
      'assigned_to null, queued says why), supervisors are told (routing.queued), its escalation level rises on each timeout, and it is ' +
      'assigned as soon as a qualified reviewer is registered, updated or freed, or an admin assigns one (POST /v1/orch/routing/{routing_id}/assign).',
    request: { body: RoutingRequestSchema },
    responses: {
      200: { description: 'The routing decision', schema: RoutingDecisionSchema },
    },
    handler: async ({ req, body, principal }) => {
      const routing_id = resourceId('rt', principal.id, req.get('idempotency-key'));
      // The rest of the body is the task as domain/ takes it.
      const { request_id, task_id, urgency, ai_agent_id, context, ...task } = body;
      const outcome = await submitRouting(deps, {
        routing_id,
        request_id: request_id ?? task_id,
        requested_by: principal.id,
        organization_id: principal.organization_id,
        task: {
          ...task,
          context: urgency ? { ...context, urgency } : context,
          ai_agent_id: ai_agent_id ?? principal.subject,
        },
      });
      const decision: z.output<typeof RoutingDecisionSchema> = outcome.decision;
      return { status: 200, body: decision, headers: { Location: `/v1/orch/routing/${routing_id}` } };
    },
  });
}

function registerRoutingRead(routing: RouteGroup, deps: RoutingDeps): void {
  routing.route({
    method: 'get',
    path: '/v1/orch/routing/{routing_id}',
    operationId: 'getRouting',
    summary: 'Read the status and progress of a routing',
    description:
      `With ?wait=N (seconds, at most ${MAX_DECISION_WAIT_SECONDS}) the read waits for the routing's decision instead of being polled: it answers as soon as ` +
      'the status is completed or expired (resolved by a human, decided autonomously, or expired at the top of the chain), or, when the wait ' +
      'ends first, with the routing as it then is (pending, queued or in_progress). Either way the body is the same as a plain read, from ' +
      'the same committed state; any API instance is woken by the change (PostgreSQL NOTIFY), and re-reads every 2 s besides.',
    auth: 'orch:read',
    request: { params: RoutingIdParamsSchema, query: DecisionWaitQuerySchema },
    responses: {
      200: {
        description: 'The routing status: decided, or, after a wait that ended first, still undecided',
        schema: RoutingStatusSchema,
      },
      404: { description: 'No such routing' },
    },
    handler: async ({ res, params, query, principal }) => {
      const row = await readAfterWait(res, deps.decisions, {
        subject: 'routing',
        id: params.routing_id,
        seconds: query.wait,
        read: () => findRoutingById(deps.db, principal.organization_id, params.routing_id),
        decided: (found) => routingDecided(found.status),
      });
      if (!row) throw new Problem('routing_not_found', `No routing ${params.routing_id}`);
      return { status: 200, body: toRoutingStatus(row) };
    },
  });
}

function registerRoutingResolution(routing: RouteGroup, deps: RoutingDeps): void {
  routing.route({
    method: 'post',
    path: '/v1/orch/routing/{routing_id}/resolve',
    operationId: 'resolveRouting',
    summary: 'A reviewer on the escalation chain resolves an escalated routing',
    description:
      'Claimed in Postgres by one conditional write: exactly one resolution wins and any later one gets 409 at once; the routing workflow ' +
      'hears of it by a signal committed with the claim and closes with it. Only a signed-in person resolves ' +
      `(a session token; or an agent with their delegation token holding ${HUMAN_ACT_CAPABILITIES.resolve_routing}, which routing:write does not imply), ` +
      'as a reviewer they are: their own DID or a reviewer linked to their Passport (PUT /v1/orch/reviewers/{did} passport_id), who must be on ' +
      'the routing’s escalation chain. reviewer_did ' +
      'may be omitted (the latest of theirs on the chain). The provenance record names the Passport and the credential.',
    request: { params: RoutingIdParamsSchema, body: ResolveRoutingRequestSchema },
    responses: {
      200: { description: 'The recorded resolution', schema: RoutingResolutionSchema },
      403: {
        description:
          'reviewer_not_assigned (not on the routing’s escalation chain), person_required, actor_mismatch or delegation_not_covering',
      },
      404: { description: 'No such routing' },
      409: {
        description:
          'The routing is not awaiting review (already resolved, expired, decided autonomously, or queued for a reviewer)',
      },
    },
    handler: async ({ params, body, principal }) => {
      const sent = await resolveRoutingAs(deps, principal, { ...body, routing_id: params.routing_id });
      if (sent.ok) {
        const { actor: _actor, ...resolution } = sent.result;
        return { status: 200, body: { routing_id: params.routing_id, status: 'completed', ...resolution } };
      }
      if (sent.code === 'routing_not_found' || sent.code === 'reviewer_not_assigned')
        throw new Problem(sent.code, sent.detail);
      if (sent.code === 'person_required' || sent.code === 'actor_mismatch' || sent.code === 'delegation_not_covering')
        throw new Problem(sent.code, sent.detail);
      throw new Problem('routing_not_awaiting_review', sent.detail);
    },
  });
}

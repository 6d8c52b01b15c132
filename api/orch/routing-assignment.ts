import { assignQueuedRouting } from '../../services/routing/assignment';
import type { RoutingServiceDeps } from '../../services/routing/submit';
import { updateIdFor } from '../../lib/ids';
import { Problem } from '../problem';
import type { ApiBuilder } from '../route';
import { EscalationResponseSchema } from '../schemas/agent-operations';
import { AssignRoutingRequestSchema, RoutingIdParamsSchema } from '../schemas/routing';
import { renderEscalation } from './agent-reports';

export function registerRoutingAssignmentRoutes(api: ApiBuilder, deps: RoutingServiceDeps): void {
  api.route({
    method: 'post',
    path: '/v1/orch/routing/{routing_id}/assign',
    operationId: 'assignQueuedRouting',
    summary: 'Assign a queued routing to a reviewer by hand (admin)',
    description:
      'For a routing waiting in the queue because no available reviewer held its capabilities: it goes to the reviewer named, who must be ' +
      'registered and available but need not hold every capability (the record notes which they hold). The escalation chain then runs as ' +
      'usual. Recorded with the caller as actor; emits routing.escalated and escalation.triggered.',
    tags: ['Routing'],
    auth: 'orch:admin',
    rateLimit: 'routing-requests',
    request: { params: RoutingIdParamsSchema, body: AssignRoutingRequestSchema },
    responses: {
      200: { description: 'The assignment, with the escalation chain', schema: EscalationResponseSchema },
      404: { description: 'routing_not_found' },
      409: {
        description:
          'routing_not_queued: the routing is not waiting for a reviewer (assigned, decided for the agent, resolved or expired)',
      },
      422: { description: 'reviewer_not_available: no available reviewer is registered with this DID' },
    },
    handler: async ({ req, params, body, principal }) => {
      const sent = await assignQueuedRouting(
        deps,
        principal,
        { routing_id: params.routing_id, ...body },
        updateIdFor(principal.id, req.get('idempotency-key')),
      );
      if (sent.ok) return { status: 200, body: renderEscalation({ ok: true, escalation: sent.result }) };
      if (
        sent.code === 'routing_not_found' ||
        sent.code === 'reviewer_not_available' ||
        sent.code === 'routing_not_queued'
      )
        throw new Problem(sent.code, sent.detail);
      throw new Problem('routing_closed', sent.detail);
    },
  });
}

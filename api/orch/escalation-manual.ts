import { escalateByHand } from '../../services/routing/escalation';
import type { RoutingServiceDeps } from '../../services/routing/submit';
import { HUMAN_ACT_CAPABILITIES } from '../../domain/identity/capabilities';
import { updateIdFor } from '../../lib/ids';
import { Problem } from '../problem';
import type { ApiBuilder } from '../route';
import { EscalateRequestSchema, EscalationResponseSchema } from '../schemas/agent-operations';
import { DidSchema } from '../schemas/common';
import { RoutingIdParamsSchema } from '../schemas/routing';
import { z } from '../schemas/zod';
import { renderEscalation } from './agent-reports';

const ManualEscalationSchema = z
  .object({
    routing_id: RoutingIdParamsSchema.shape.routing_id,
    escalation_reason: z.string().min(1).max(2000),
    requested_by: DidSchema.optional().openapi({
      description:
        'Who escalates. A signed-in person may only name themself (omitted, it is them; anyone else is 403 actor_mismatch); a credential that ' +
        'authenticates no person may name the person it acts for, which the record keeps as requested_by_named, unproven',
    }),
    target_capability: EscalateRequestSchema.shape.target_capability,
    min_weight: EscalateRequestSchema.shape.min_weight,
    urgency: EscalateRequestSchema.shape.urgency,
    context: EscalateRequestSchema.shape.context,
  })
  .strict()
  .openapi('ManualEscalationRequest');

export function registerManualEscalationRoutes(api: ApiBuilder, deps: RoutingServiceDeps): void {
  api.route({
    method: 'post',
    path: '/v1/orch/escalation/manual',
    operationId: 'escalateManually',
    summary: 'Escalate a routing by hand: to a reviewer holding target_capability, or up the chain',
    description:
      'Works on a routing a human holds (it moves to another reviewer, never at lower urgency), on one waiting in the queue, and on a routing decided ' +
      'for the agent alone, in any mode, within ROUTING_REVIEW_WINDOW_SECONDS of its decision (default 7 days): a supervisor reviewing what the agent ' +
      'did reopens it, and a reviewer takes it with the escalation chain (queued when none qualifies). Answers with the escalation chain; emits ' +
      'escalation.triggered. Escalating moves work to humans, so any orch:write credential may: a signed-in person (a session token; or an agent ' +
      `with their delegation token holding ${HUMAN_ACT_CAPABILITIES.escalate_routing}) is recorded as the actor with the credential that ` +
      'authenticated them; a personal access token, service account or OAuth client is recorded as the principal that asked (actor type ' +
      'orch_core, instance_id and principal {kind, id}). Resolving stays a person’s act.',
    tags: ['Escalation rules'],
    auth: 'orch:write',
    rateLimit: 'routing-requests',
    request: { body: ManualEscalationSchema },
    responses: {
      200: { description: 'The escalation', schema: EscalationResponseSchema },
      403: { description: 'actor_mismatch (a person naming someone else) or delegation_not_covering' },
      404: { description: 'routing_not_found' },
      409: {
        description:
          'routing_closed: resolved, expired, or decided for the agent longer ago than the review window (the detail names it)',
      },
      422: { description: 'no_qualified_reviewer' },
    },
    handler: async ({ req, body, principal }) => {
      const { escalation_reason, ...request } = body;
      const sent = await escalateByHand(
        deps,
        principal,
        { ...request, reason: escalation_reason },
        updateIdFor(principal.id, req.get('idempotency-key')),
      );
      if (!sent.ok && (sent.code === 'actor_mismatch' || sent.code === 'delegation_not_covering'))
        throw new Problem(sent.code, sent.detail);
      if (!sent.ok)
        throw new Problem(sent.code === 'routing_not_found' ? 'routing_not_found' : 'routing_closed', sent.detail);
      return { status: 200, body: renderEscalation(sent.result) };
    },
  });
}

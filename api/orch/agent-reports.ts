import { logAgentAction, reportAgentConfidence } from '../../services/routing/agent-operations';
import { escalateAgentTask } from '../../services/routing/escalation';
import type { RoutingServiceDeps } from '../../services/routing/submit';
import { updateIdFor } from '../../lib/ids';
import type { UpdateResult } from '../../services/routing/updates';
import type { EscalateOutcome } from '../../contracts/route-task';
import { Problem } from '../problem';
import type { ApiBuilder } from '../route';
import { routeGroup, type RouteGroup } from '../route-group';
import {
  AgentConfidenceHeadersSchema,
  AgentHeadersSchema,
  ConfidenceRequestSchema,
  ConfidenceResponseSchema,
  EscalateRequestSchema,
  EscalationResponseSchema,
  LoggedProvenanceSchema,
  LogProvenanceRequestSchema,
} from '../schemas/agent-operations';
import { assigneeView } from '../schemas/routing';
import { requireCallingAgent, statedConfidence } from './calling-agent';
import { actingAloneRefusal } from './confidence-problems';

/** The problem for an update the routing refused or could not take. */
function updateProblem(failure: Extract<UpdateResult<unknown>, { ok: false }>, taskId: string): Problem {
  if (failure.code === 'routing_not_found')
    return new Problem(
      'routing_not_found',
      `The agent has no routing for task ${taskId}; route it with POST /v1/orch/route first`,
    );
  return new Problem('routing_closed', failure.detail);
}

/** The spec's manual escalation answer, from the workflow's escalation record (also used by /escalation/manual). */
export function renderEscalation(outcome: EscalateOutcome) {
  if (!outcome.ok) {
    throw new Problem(
      'no_qualified_reviewer',
      `No available reviewer holds ${outcome.required_capabilities.map((c) => `${c.capability_id} ≥ ${c.min_weight}`).join(', ')}`,
      {
        extensions: { routing_id: outcome.routing_id, required_capabilities: outcome.required_capabilities },
      },
    );
  }
  const { escalation } = outcome;
  return {
    ...escalation,
    assigned_to: escalation.assigned_to && {
      type: 'human' as const,
      did: escalation.assigned_to.did,
      ...(escalation.assigned_to.covering_for !== undefined
        ? { covering_for: escalation.assigned_to.covering_for }
        : {}),
      capabilities: escalation.assigned_to.capabilities_matched,
    },
  };
}

export function registerAgentReportRoutes(api: ApiBuilder, deps: RoutingServiceDeps): void {
  const agentOperations = routeGroup(api, {
    tags: ['Agent operations'],
    auth: 'orch:agent',
    rateLimit: 'routing-requests',
  });
  registerConfidenceReport(agentOperations, deps);
  registerEscalation(agentOperations, deps);
  registerActionLog(agentOperations, deps);
}

function registerConfidenceReport(agentOperations: RouteGroup, deps: RoutingServiceDeps): void {
  agentOperations.route({
    method: 'post',
    path: '/v1/orch/confidence',
    operationId: 'reportConfidence',
    summary: 'An agent reports or updates its confidence for a running task',
    description:
      'Recorded in the task’s provenance. Below 0.70 the Fourth Law hands an agent-held task to a human at once. When the agent means to act alone ' +
      '(proceed_autonomously, the default) and may not, the answer is a problem: confidence_below_threshold (422, with escalation.required and ' +
      'suggested_reviewers), escalation_required (422: a human holds the task), or safety_violation (403: its registered constraints forbid the task; ' +
      'recorded with safety events).',
    request: { headers: AgentConfidenceHeadersSchema, body: ConfidenceRequestSchema },
    responses: {
      200: { description: 'The agent may act alone (or did not ask to)', schema: ConfidenceResponseSchema },
      403: { description: 'agent_not_registered, agent_id_mismatch, or safety_violation' },
      404: { description: 'routing_not_found: no routing for this task' },
      409: { description: 'routing_closed: the routing no longer takes reports' },
      422: { description: 'confidence_below_threshold, escalation_required, or confidence_mismatch' },
    },
    handler: async ({ req, headers, body, principal }) => {
      const agent = await requireCallingAgent(deps.db, principal, headers['x-agent-id']);
      const confidence = statedConfidence(headers['x-confidence-score'], body.confidence, 'confidence');
      const sent = await reportAgentConfidence(
        deps,
        principal.organization_id,
        agent,
        { ...body, confidence },
        updateIdFor(principal.id, req.get('idempotency-key')),
      );
      if (!sent.ok) throw updateProblem(sent, body.task_id);
      const refusal = actingAloneRefusal(body, confidence, sent.result);
      if (refusal) throw refusal;
      const { outcome } = sent.result;
      return {
        status: 200,
        body: {
          routing_id: outcome.routing_id,
          task_id: body.task_id,
          confidence,
          action_allowed: !outcome.fourth_law_triggered && !outcome.human_assigned && outcome.status !== 'queued',
          fourth_law_triggered: outcome.fourth_law_triggered,
          status: outcome.status,
          assigned_to: outcome.assigned_to ? assigneeView(outcome.assigned_to) : null,
          suggested_reviewers: outcome.suggested_reviewers,
          ledger_anchor: outcome.ledger_anchor,
        },
      };
    },
  });
}

function registerEscalation(agentOperations: RouteGroup, deps: RoutingServiceDeps): void {
  agentOperations.route({
    method: 'post',
    path: '/v1/orch/escalate',
    operationId: 'escalateAgentTask',
    summary: 'An agent asks for a human to take its task (or, when a human holds it, another one)',
    description:
      'The task goes to the least-loaded qualified reviewer (holding target_capability too, when named) at the urgency asked, or by its risk; ' +
      'a task a human already holds moves up the chain. Emits escalation.triggered (and routing.escalated when it leaves the agent). When no ' +
      'available reviewer qualifies, a task the agent held waits in the queue (status queued, assigned_to null) until one does; a task a human ' +
      'holds stays with them (422 no_qualified_reviewer).',
    request: { headers: AgentHeadersSchema, body: EscalateRequestSchema },
    responses: {
      200: { description: 'The escalation', schema: EscalationResponseSchema },
      403: { description: 'agent_not_registered, or agent_id_mismatch' },
      404: { description: 'routing_not_found: no routing for this task' },
      409: {
        description: 'routing_closed: resolved, expired, or an ai_first routing (or its escalation window ended)',
      },
      422: {
        description: 'no_qualified_reviewer: a human holds the task and nobody else qualifies (it stays with them)',
      },
    },
    handler: async ({ req, headers, body, principal }) => {
      const agent = await requireCallingAgent(deps.db, principal, headers['x-agent-id']);
      const sent = await escalateAgentTask(
        deps,
        principal.organization_id,
        agent,
        body,
        updateIdFor(principal.id, req.get('idempotency-key')),
      );
      if (!sent.ok) throw updateProblem(sent, body.task_id);
      return { status: 200, body: renderEscalation(sent.result) };
    },
  });
}

function registerActionLog(agentOperations: RouteGroup, deps: RoutingServiceDeps): void {
  agentOperations.route({
    method: 'post',
    path: '/v1/orch/provenance',
    operationId: 'logAgentAction',
    summary: 'An agent logs an action it took into its task’s provenance',
    description:
      'Appended to the task’s decision chain (GET /v1/orch/provenance/{routing_id}) with the agent as actor, and announced as audit.provenance_logged. ' +
      'An action the agent’s registered constraints forbid is recorded all the same, with safety.violation and safety.boundary_violation, and listed in safety_violations. ' +
      'With an Idempotency-Key a retry finds the first record.',
    rateLimit: 'provenance-queries',
    request: { headers: AgentHeadersSchema, body: LogProvenanceRequestSchema },
    responses: {
      201: { description: 'The record, anchored in the ledger', schema: LoggedProvenanceSchema },
      403: { description: 'agent_not_registered, or agent_id_mismatch' },
      404: { description: 'routing_not_found: no routing for this task' },
    },
    handler: async ({ req, headers, body, principal }) => {
      const agent = await requireCallingAgent(deps.db, principal, headers['x-agent-id']);
      const result = await logAgentAction(deps.db, agent, principal, body, req.get('idempotency-key'));
      if (!result.ok) throw new Problem('routing_not_found', `The agent has no routing for task ${body.task_id}`);
      return { status: 201, body: result.logged };
    },
  });
}

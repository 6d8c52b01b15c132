import type { AgentProfile } from '../../domain/agents';
import { agentDid } from '../../domain/provenance';
import { FAILURE_TYPES } from '../../contracts/failures';
import { escalateUpdate, type EscalateOutcome, type EscalateRoutingInput } from '../../contracts/route-task';
import { findRoutingById } from '../../db/routings';
import { describeDuration } from '../../domain/routing-escalation';
import { agentRoutingId } from './agent-operations';
import type { RoutingServiceDeps } from './submit';
import { sendRoutingUpdate, type UpdateResult } from './updates';

/** Escalation by request, its requester aside: the routing workflow picks the reviewer and records the chain. */
export type EscalationRequest = Omit<EscalateRoutingInput, 'requested_by'>;

/** The agent asks for a human on its task (POST /escalate). */
export async function escalateAgentTask(
  deps: RoutingServiceDeps,
  organizationId: string,
  agent: AgentProfile,
  request: EscalationRequest & { task_id: string },
  updateId: string | undefined,
): Promise<UpdateResult<EscalateOutcome>> {
  const { task_id, ...escalation } = request;
  return sendRoutingUpdate(
    deps,
    organizationId,
    agentRoutingId(agent.agent_id, task_id),
    escalateUpdate,
    [{ ...escalation, requested_by: { type: 'ai_agent', did: agentDid(agent.agent_id), agent_id: agent.agent_id } }],
    updateId,
  );
}

/**
 * Someone escalates a routing by hand (POST /escalation/manual): one a human holds moves on; one decided
 * for the agent alone is reopened for a reviewer while its review window lasts. Past that window the
 * refusal names it.
 */
export async function escalateByHand(
  deps: RoutingServiceDeps,
  organizationId: string,
  request: EscalationRequest & { routing_id: string; requested_by: string },
  updateId: string | undefined,
): Promise<UpdateResult<EscalateOutcome>> {
  const { routing_id, requested_by, ...escalation } = request;
  const sent = await sendRoutingUpdate(deps, organizationId, routing_id, escalateUpdate, [{ ...escalation, requested_by: { type: 'human', did: requested_by } }], updateId);
  if (sent.ok || sent.code !== FAILURE_TYPES.routingClosed) return sent;
  const row = await findRoutingById(deps.db, organizationId, routing_id);
  if (row?.status !== 'completed' || row.decision !== 'ai_autonomous' || !row.decision_result) return sent;
  const windowSeconds = deps.reviewWindowSeconds;
  const decidedAt = row.decision_result.provenance.timestamp;
  const endedAt = new Date(Date.parse(decidedAt) + windowSeconds * 1000).toISOString();
  return {
    ok: false,
    code: FAILURE_TYPES.routingClosed,
    detail:
      `Routing ${routing_id} was decided for the agent alone at ${decidedAt}; a supervisor may reopen it for review within the review window of ` +
      `${describeDuration(windowSeconds)} (ROUTING_REVIEW_WINDOW_SECONDS) after its decision, which ended at ${endedAt}`,
  };
}

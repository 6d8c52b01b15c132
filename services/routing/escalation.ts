import type { AgentProfile } from '../../domain/agents';
import type { Urgency } from '../../domain/escalation-rules';
import { agentDid } from '../../domain/provenance';
import { escalateUpdate, type EscalateOutcome } from '../../contracts/route-task';
import { agentRoutingId } from './agent-operations';
import type { RoutingServiceDeps } from './submit';
import { sendRoutingUpdate, type UpdateResult } from './updates';

/** Escalation by request: the routing workflow picks the reviewer and records the chain. */
export interface EscalationRequest {
  reason: string;
  urgency?: Urgency | undefined;
  target_capability?: string | undefined;
  min_weight?: number | undefined;
  context?: Record<string, unknown> | undefined;
}

/** The agent asks for a human on its task (POST /escalate). */
export async function escalateAgentTask(
  deps: RoutingServiceDeps,
  agent: AgentProfile,
  request: EscalationRequest & { task_id: string },
  updateId: string | undefined,
): Promise<UpdateResult<EscalateOutcome>> {
  const { task_id, ...escalation } = request;
  return sendRoutingUpdate(
    deps,
    agentRoutingId(agent.agent_id, task_id),
    escalateUpdate,
    [{ ...escalation, requested_by: { type: 'ai_agent', did: agentDid(agent.agent_id), agent_id: agent.agent_id } }],
    updateId,
  );
}

/** Someone escalates a routing by hand (POST /escalation/manual). */
export async function escalateByHand(
  deps: RoutingServiceDeps,
  request: EscalationRequest & { routing_id: string; requested_by: string },
  updateId: string | undefined,
): Promise<UpdateResult<EscalateOutcome>> {
  const { routing_id, requested_by, ...escalation } = request;
  return sendRoutingUpdate(deps, routing_id, escalateUpdate, [{ ...escalation, requested_by: { type: 'human', did: requested_by } }], updateId);
}

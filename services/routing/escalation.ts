import type { AgentProfile } from '../../domain/agents/agents';
import { agentDid } from '../../domain/provenance/records';
import { principalDid } from '../../lib/ids';
import { FAILURE_TYPES } from '../../contracts/failures';
import { escalateUpdate, type EscalateOutcome, type EscalateRoutingInput } from '../../contracts/route-task';
import { findRoutingById } from '../../db/routings';
import { humanActorOf, type HumanActRefusal } from '../../domain/identity/human-acts';
import type { Principal } from '../identity/scopes';
import { describeDuration } from '../../domain/routing/escalation';
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
 * Who asks for an escalation by hand: a signed-in person as themself (or their delegate holding the act's
 * capability); any other orch:write credential as itself, since escalating only moves work to humans. The
 * DID such a credential names is kept as named, not as proven.
 */
export function manualRequester(
  caller: Principal,
  named: string | undefined,
): { ok: true; requester: EscalateRoutingInput['requested_by'] } | HumanActRefusal {
  if (!caller.actor) {
    const principal = { kind: caller.kind, id: caller.id, ...(named !== undefined ? { named_did: named } : {}) };
    return { ok: true, requester: { type: 'principal', did: principalDid(caller.id), principal } };
  }
  const acting = humanActorOf(caller, 'escalate_routing', named);
  if (!acting.ok) return acting;
  return { ok: true, requester: { type: 'human', did: acting.actor.did, person: acting.actor } };
}

/**
 * A routing escalated by hand (POST /escalation/manual): one a human holds moves on; one decided for the
 * agent alone is reopened for a reviewer while its review window lasts. Past that window the refusal names it.
 */
export async function escalateByHand(
  deps: RoutingServiceDeps,
  caller: Principal,
  request: EscalationRequest & { routing_id: string; requested_by?: string | undefined },
  updateId: string | undefined,
): Promise<UpdateResult<EscalateOutcome> | HumanActRefusal> {
  const { routing_id, requested_by, ...escalation } = request;
  const asked = manualRequester(caller, requested_by);
  if (!asked.ok) return asked;
  const sent = await sendRoutingUpdate(
    deps,
    caller.organization_id,
    routing_id,
    escalateUpdate,
    [{ ...escalation, requested_by: asked.requester }],
    updateId,
  );
  if (sent.ok || sent.code !== FAILURE_TYPES.routingClosed) return sent;
  const row = await findRoutingById(deps.db, caller.organization_id, routing_id);
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

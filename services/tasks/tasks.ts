import type { Knex } from 'knex';
import { appendProvenance } from '../../db/ledger';
import { findPlatformAgentByUri, type PlatformAgentRow } from '../../db/platform-agents';
import { insertTaskIfAbsent } from '../../db/tasks';
import { ORCH_CORE_DID } from '../../domain/provenance/records';
import type { RequiredCapability, RoutingTask } from '../../domain/routing/decision';
import { agentForCapabilities, workforceRequirements } from '../../domain/tasks/status';
import { matchRequirements } from '../capabilities/match';
import { orgSegments } from '../capabilities/definitions';
import { submitRouting, type RoutingServiceDeps } from '../routing/submit';
import type { DecideOutcome } from '../../contracts/route-task';
import { derivedId } from '../../lib/ids';

/** A task for the workforce: the routing task's fields as the submitter gives them (the confidence optional), with its title and the agent proposed. */
export type NewTask = Pick<RoutingTask, 'task_type' | 'required_capabilities' | 'context' | 'ai_recommendation'> &
  Partial<Pick<RoutingTask, 'ai_confidence'>> & {
    title: string;
    description?: string | undefined;
    agent_uri?: string | undefined;
    urgency?: string | undefined;
  };

export type SubmitTaskOutcome =
  | { ok: true; task_id: string; routing_id: string; agent_uri: string | null; decision: DecideOutcome }
  | { ok: false; code: 'agent_not_found'; detail: string };

/** Active agents of the workforce, in registration order. */
async function activeAgents(db: Knex, organizationId: string): Promise<PlatformAgentRow[]> {
  return db<PlatformAgentRow>('platform_agents')
    .where({ status: 'active', organization_id: organizationId })
    .orderBy([{ column: 'created_at' }, { column: 'agent_id' }]);
}

/**
 * The first active agent (registration order) the one matcher qualifies for every required capability: live
 * grants (its registration's among them), implications followed.
 */
async function workforceAgent(
  db: Knex,
  organizationId: string,
  required: readonly RequiredCapability[],
): Promise<PlatformAgentRow | undefined> {
  const requirements = workforceRequirements(required, (await orgSegments(db, organizationId)).own);
  if (!requirements) return undefined;
  const agents = await activeAgents(db, organizationId);
  const qualified =
    requirements.length === 0 ? [] : await matchRequirements(db, organizationId, requirements, { kinds: ['agent'] });
  return agentForCapabilities(agents, requirements, qualified);
}

type TaskIds = { task_id: string; submitted_by: string; organization_id: string };

/** The task, its provenance record and its event, written once: a retried submission finds the task there. */
async function recordTask(
  db: Knex,
  ids: TaskIds,
  body: NewTask,
  routing: { routing_id: string; agent_uri: string | null },
): Promise<void> {
  const { routing_id, agent_uri } = routing;
  await db.transaction(async (trx) => {
    const created = await insertTaskIfAbsent(trx, {
      task_id: ids.task_id,
      organization_id: ids.organization_id,
      title: body.title,
      description: body.description ?? null,
      task_type: body.task_type,
      routing_id,
      agent_uri,
      request: { ...body },
      submitted_by: ids.submitted_by,
    });
    if (!created) return;
    await appendProvenance(trx, {
      organization_id: ids.organization_id,
      entry: {
        subject_id: ids.task_id,
        step_id: 'submitted',
        timestamp: new Date().toISOString(),
        actor: { type: 'orch_core', did: ORCH_CORE_DID },
        action: 'task_submitted',
        input_data: { ...body },
        output_data: { routing_id, agent_uri },
        reasoning: `${ids.submitted_by} submitted "${body.title}" for routing${agent_uri ? `; ${agent_uri} offers its capabilities` : '; no agent offers its capabilities'}`,
      },
      events: [
        {
          event: 'task.submitted',
          data: { task_id: ids.task_id, routing_id, title: body.title, task_type: body.task_type, agent_uri },
        },
      ],
    });
  });
}

/**
 * Submits a task to the workforce: the agent that would do it is the one named, or the first active agent
 * the one matcher qualifies for every required capability (grants, implications followed); the orchestration
 * routing workflow then decides (Fourth Law, risk, rules) whether that agent acts or a qualified human takes it. Without a confidence, a human takes it.
 * The task record links the task to its routing, written once with its provenance and event.
 */
export async function submitTask(deps: RoutingServiceDeps, ids: TaskIds, body: NewTask): Promise<SubmitTaskOutcome> {
  let agent: PlatformAgentRow | undefined;
  if (body.agent_uri) {
    agent = await findPlatformAgentByUri(deps.db, ids.organization_id, body.agent_uri);
    if (!agent) return { ok: false, code: 'agent_not_found', detail: `No agent is registered as ${body.agent_uri}` };
  } else {
    agent = await workforceAgent(deps.db, ids.organization_id, body.required_capabilities);
  }
  const routing_id = derivedId('rt', ids.task_id, 'routing');
  const agent_uri = agent?.agent_uri ?? null;
  await recordTask(deps.db, ids, body, { routing_id, agent_uri });
  const task: RoutingTask = {
    task_type: body.task_type,
    context: { ...body.context, title: body.title, ...(body.urgency ? { urgency: body.urgency } : {}) },
    ai_agent_id: agent_uri ?? 'none',
    ai_confidence: agent ? (body.ai_confidence ?? 0) : 0,
    ai_recommendation: body.ai_recommendation,
    required_capabilities: body.required_capabilities,
    safety_requirements: {},
    escalation_conditions: {},
  };
  const decision = await submitRouting(deps, {
    routing_id,
    request_id: ids.task_id,
    requested_by: ids.submitted_by,
    organization_id: ids.organization_id,
    task,
  });
  return { ok: true, task_id: ids.task_id, routing_id, agent_uri, decision };
}

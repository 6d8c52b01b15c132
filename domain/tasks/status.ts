import type { Match, Requirement } from '../capabilities/matcher';
import { ownCapabilityName } from '../capabilities/uris';
import type { RequiredCapability } from '../routing/decision';
import type { RoutingDecisionKind } from '../routing/decision';
import type { RoutingStatus } from '../routing/progress';

/**
 * routing     the routing decision is being made
 * assigned    handed to its assignee: the agent (decided autonomous) or a human (awaiting their resolution)
 * resolved    the human assigned resolved it
 * expired     nobody on the escalation chain resolved it in time
 * unassigned  a human is needed but nobody holds the required capabilities yet (the routing is queued)
 */
export const TASK_STATUSES = ['routing', 'assigned', 'resolved', 'expired', 'unassigned'] as const;
export type TaskStatus = (typeof TASK_STATUSES)[number];

export function taskStatus(
  routing: { status: RoutingStatus; decision?: RoutingDecisionKind | null | undefined } | undefined,
): TaskStatus {
  if (!routing || routing.status === 'pending') return 'routing';
  switch (routing.status) {
    case 'in_progress':
      return 'assigned';
    case 'completed':
      return routing.decision === 'ai_autonomous' ? 'assigned' : 'resolved';
    case 'expired':
      return 'expired';
    case 'queued':
      return 'unassigned';
  }
}

/**
 * The workforce's needs as the one matcher's requirements, each named as grants key it (lower-cased, the
 * organization's own segment dropped); undefined when one names another organization's capability or is no
 * capability name, which no agent of this organization can hold.
 */
export function workforceRequirements(
  required: readonly Pick<RequiredCapability, 'capability_id' | 'min_weight'>[],
  ownSegments: readonly string[],
): Requirement[] | undefined {
  const requirements: Requirement[] = [];
  for (const need of required) {
    const capability = ownCapabilityName(need.capability_id.toLowerCase(), ownSegments);
    if (capability === undefined) return undefined;
    requirements.push({ capability, min_weight: need.min_weight });
  }
  return requirements;
}

/**
 * The agent for a task: the first of the workforce's agents (in registration order) the matcher qualified
 * (its DID, platform_agents.passport_id, among `qualified`: live grants, implications followed); with nothing
 * required, the first agent.
 */
export function agentForCapabilities<A extends { passport_id: string }>(
  agents: readonly A[],
  required: readonly unknown[],
  qualified: readonly Pick<Match, 'did'>[],
): A | undefined {
  if (required.length === 0) return agents[0];
  const dids = new Set(qualified.map((match) => match.did));
  return agents.find((agent) => dids.has(agent.passport_id));
}

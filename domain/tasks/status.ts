import { matchCapability } from '../executions/agent-calls';
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

/** A required capability named by id (`summarize`) or URI (`capability://acme/summarize`), as a capability URI. */
export function capabilityUriOf(capabilityId: string): string {
  return capabilityId.startsWith('capability://') ? capabilityId : `capability://${capabilityId}`;
}

/** The first agent that offers every required capability; the workforce's agents are tried in registration order. */
export function agentForCapabilities<A extends { capabilities: readonly string[] }>(
  agents: readonly A[],
  required: readonly string[],
): A | undefined {
  return agents.find((agent) =>
    required.every((capability) => matchCapability(agent.capabilities, capabilityUriOf(capability)) !== undefined),
  );
}

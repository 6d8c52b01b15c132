/**
 * Every kind of event the service emits: each is put in the outbox in the same transaction as the
 * provenance record it belongs to, and delivered to the webhook subscriptions that ask for it. A new kind
 * is added here, with the operation that emits it, so that subscriptions, the OpenAPI document and the
 * emitters stay one list.
 */
export const EVENT_KINDS = {
  // Orchestration, first list of the spec.
  'routing.completed': 'A routing reached its outcome: decided for the agent alone, or resolved by its reviewer',
  'routing.escalated': 'A routing was assigned to a human',
  'safety.boundary_violation': 'A safety check or routing found a boundary violated',
  'audit.provenance_logged': 'An agent logged an action into a task’s provenance',
  // Orchestration, second list of the spec.
  'routing.decided': 'A routing decision was made',
  'escalation.triggered': 'A routing escalated to a human, or up the chain after a reviewer’s timeout',
  'safety.violation': 'A safety boundary was violated',
  'agent.registered': 'An AI agent was registered',
  'audit.critical': 'Something an auditor must see, e.g. an escalation chain exhausted with no resolution',
  // Orchestration layer (issue 3): emitted by the routing workflow when a triggered escalation rule's
  // notify_supervisor threshold is reached.
  'escalation.supervisor_notified': 'An escalation rule asked for a supervisor to be told, and the routing’s escalation level reached its threshold',
} as const satisfies Record<string, string>;

export type EventKind = keyof typeof EVENT_KINDS;

export function isEventKind(value: string): value is EventKind {
  return Object.hasOwn(EVENT_KINDS, value);
}

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
  // Webhooks.
  'webhook.endpoint_disabled': 'A webhook endpoint was disabled: it answered 410 Gone, or every attempt failed for days',
} as const satisfies Record<string, string>;

export type EventKind = keyof typeof EVENT_KINDS;

export function isEventKind(value: string): value is EventKind {
  return Object.hasOwn(EVENT_KINDS, value);
}

/**
 * The emission audit: the operation that emits each kind, in the same transaction as its provenance
 * record (appendProvenance). Typed against EVENT_KINDS, so a kind added without naming its emitter does
 * not compile. The README's event table follows this list.
 */
export const EVENT_EMITTERS = {
  'routing.decided': 'routeTaskWorkflow, decision step: every decided routing (POST /v1/orch/routing and every entry through submitRouting), also one that finds no qualified reviewer',
  'routing.escalated': 'routeTaskWorkflow, decision step: a human was assigned (escalate_to_human, hybrid_collaboration)',
  'escalation.triggered': 'routeTaskWorkflow: a human was assigned at the decision, and again each time a level timed out and the routing moved up the chain (reason reviewer_timeout)',
  'routing.completed': 'routeTaskWorkflow: the assigned reviewer resolved the routing (POST /v1/orch/routing/{routing_id}/resolve); autonomous decisions: orchestration workstream',
  'audit.critical': 'routeTaskWorkflow: the last level of the escalation chain timed out (reason escalation_chain_exhausted)',
  'safety.boundary_violation': 'orchestration workstream: POST /v1/orch/safety/check and routings that find a boundary violated',
  'safety.violation': 'orchestration workstream: the same violations as safety.boundary_violation (second list of the spec)',
  'agent.registered': 'orchestration workstream: POST /v1/orch/agents/register',
  'audit.provenance_logged': 'orchestration workstream: POST /v1/orch/provenance (an agent logs an action)',
  'webhook.endpoint_disabled': 'deliverWebhookWorkflow, recordDeliveryAttempt: an attempt answered 410 Gone, or every attempt failed for WEBHOOK_DISABLE_AFTER_FAILING_SECONDS',
} as const satisfies Record<EventKind, string>;

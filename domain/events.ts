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
  // Platform: approvals, executions, workflow DAGs, tasks and the agents registry.
  'approval.requested': 'An approval request was created and waits for a human (POST /v1/approvals, an agent call or a DAG node)',
  'approval.approved': 'An approval request was approved, possibly with modified parameters',
  'approval.rejected': 'An approval request was rejected (also the escalation queue’s reject and request_changes)',
  'approval.expired': 'An approval request reached its expires_at without an answer',
  'approval.cancelled': 'An approval request was cancelled, by a caller or with the execution or workflow that asked',
  'execution.queued': 'An agent call was accepted and queued (it may first wait for its approval)',
  'execution.started': 'An execution started calling its agent',
  'execution.completed': 'An agent answered an execution with its result',
  'execution.failed': 'An execution failed: the agent refused it, or every attempt failed',
  'execution.cancelled': 'An execution was cancelled, or its approval was not given',
  'workflow.started': 'A workflow DAG started running',
  'workflow.completed': 'Every node of a workflow DAG completed or was skipped',
  'workflow.failed': 'A node of a workflow DAG failed, so the workflow failed',
  'task.submitted': 'A task was submitted for routing to the workforce',
  'platform_agent.registered': 'An agent was registered in the platform registry with its endpoint',
  'platform_agent.updated': 'A registered agent’s endpoint, capabilities, policy or status changed',
  'platform_agent.deployed': 'A version of an agent was deployed to an environment',
} as const satisfies Record<string, string>;

export type EventKind = keyof typeof EVENT_KINDS;

export function isEventKind(value: string): value is EventKind {
  return Object.hasOwn(EVENT_KINDS, value);
}

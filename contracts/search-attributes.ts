/**
 * Custom search attributes set on every routing so an SRE can filter routings in the Temporal UI,
 * e.g. `HandoffDecision = "escalate_to_human" AND HandoffEscalationLevel = "urgent"`. The dev supervisor
 * and the tests register them with the server; production registers them once per namespace with
 * `npm run temporal:search-attributes` (docs/operations.md).
 */
export const TaskTypeKey = { name: 'HandoffTaskType', type: 'KEYWORD' } as const;
export const AgentIdKey = { name: 'HandoffAgentId', type: 'KEYWORD' } as const;
export const DecisionKey = { name: 'HandoffDecision', type: 'KEYWORD' } as const;
export const EscalationLevelKey = { name: 'HandoffEscalationLevel', type: 'KEYWORD' } as const;
export const ConfidenceKey = { name: 'HandoffConfidence', type: 'DOUBLE' } as const;
export const RoutingStatusKey = { name: 'HandoffRoutingStatus', type: 'KEYWORD' } as const;

// Platform (approvals, executions, workflow DAGs): `WorkflowType = "approvalWorkflow" AND HandoffPlatformStatus = "pending"`.
export const PlatformStatusKey = { name: 'HandoffPlatformStatus', type: 'KEYWORD' } as const;
export const ApproverKey = { name: 'HandoffApprover', type: 'KEYWORD' } as const;
// Webhook deliveries: find every delivery of one subscription, or of one kind of event, in the Temporal UI,
// e.g. `HandoffWebhookSubscription = "whsub_…" AND ExecutionStatus = "Running"` (those still retrying).
export const WebhookSubscriptionKey = { name: 'HandoffWebhookSubscription', type: 'KEYWORD' } as const;
export const EventKindKey = { name: 'HandoffEventKind', type: 'KEYWORD' } as const;
// Guardian recoveries carry their status in HandoffPlatformStatus (`WorkflowType = "recoverPassportWorkflow" AND
// HandoffPlatformStatus = "time_locked"`: those the owner may still cancel) and their Passport here
// (`HandoffRecoveryPassport = "pp_…"`). The tenth keyword attribute: SQL visibility stores (the dev server's
// SQLite included) take ten, so a further one must replace one.
export const RecoveryPassportKey = { name: 'HandoffRecoveryPassport', type: 'KEYWORD' } as const;

export const ALL_SEARCH_ATTRIBUTES = [
  TaskTypeKey,
  AgentIdKey,
  DecisionKey,
  EscalationLevelKey,
  ConfidenceKey,
  RoutingStatusKey,
  PlatformStatusKey,
  ApproverKey,
  WebhookSubscriptionKey,
  EventKindKey,
  RecoveryPassportKey,
];

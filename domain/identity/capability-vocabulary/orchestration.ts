import type { CapabilityDefinition } from './definition';

/** The orchestration layer’s (/v1/orch): routing, its agents, rules, reviewers, safety, webhooks, credentials, compliance, audit; an agent’s own operations. */
export const ORCHESTRATION_CAPABILITIES = {
  'routing:read': {
    description: 'Read routings, their history, provenance and ledger proofs',
    risk: 'low',
    implied_by: 'orch:read',
  },
  'routing:write': {
    description: 'Start a routing (no human act: resolving, escalating and feedback have their own capabilities)',
    risk: 'standard',
    implied_by: 'orch:write',
  },
  'routing:resolve': {
    description: 'Resolve a routing as a reviewer the person is (a human act)',
    risk: 'standard',
    implied_by: 'orch:write',
  },
  'routing:escalate': {
    description: 'Escalate a routing by hand, as the person (a human act)',
    risk: 'standard',
    implied_by: 'orch:write',
  },
  'routing:feedback': {
    description: 'Confirm, overturn or flag a completed routing’s outcome, as the person (a human act)',
    risk: 'standard',
    implied_by: 'orch:write',
  },
  'routing:assign': { description: 'Assign a queued routing to a reviewer', risk: 'high', implied_by: 'orch:admin' },
  'orch_agents:read': {
    description: 'List and read registered orchestration agents and their performance',
    risk: 'low',
    implied_by: 'orch:read',
  },
  'orch_agents:manage': {
    description: 'Register and update orchestration agents, rotate their keys',
    risk: 'high',
    implied_by: 'orch:admin',
  },
  'escalation_rules:read': {
    description: 'List, read and dry-run escalation rules',
    risk: 'low',
    implied_by: 'orch:read',
  },
  'escalation_rules:manage': {
    description: 'Create, change, enable, disable and delete escalation rules',
    risk: 'high',
    implied_by: 'orch:admin',
  },
  'reviewers:read': { description: 'List reviewers', risk: 'low', implied_by: 'orch:read' },
  'reviewers:manage': { description: 'Register or change a reviewer', risk: 'high', implied_by: 'orch:admin' },
  'safety:read': { description: 'Read the safety configuration', risk: 'low', implied_by: 'orch:read' },
  'safety:manage': {
    description: 'Change the safety configuration of a domain',
    risk: 'high',
    implied_by: 'orch:admin',
  },
  'webhooks:manage': {
    description: 'Manage webhook subscriptions and their deliveries',
    risk: 'high',
    implied_by: 'orch:admin',
  },
  'service_accounts:manage': {
    description: 'Create, list and revoke service accounts',
    risk: 'high',
    implied_by: 'orch:admin',
  },
  'personal_access_tokens:manage': {
    description: 'Create, list, read and revoke personal access tokens',
    risk: 'high',
    implied_by: 'orch:admin',
  },
  'compliance:reports': { description: 'Create and read compliance reports', risk: 'high', implied_by: 'orch:admin' },
  'audit_log:read': {
    description: 'Read the audit log and export the ledger',
    risk: 'standard',
    implied_by: 'audit:read',
  },
  agent_operations: {
    description: 'The operations of a registered agent’s own API key (/route, /confidence, …); never delegated',
    risk: 'standard',
    implied_by: 'orch:agent',
  },
} as const satisfies Record<string, CapabilityDefinition>;

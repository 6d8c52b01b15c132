import type { CapabilityDefinition } from './definition';

/** The platform’s: reasoning, models, platform agents, approvals, executions, workflows, tasks, provenance, health, organizations. */
export const PLATFORM_CAPABILITIES = {
  reasoning: {
    description: 'Call the reasoning endpoint and read the model registry',
    risk: 'low',
    implied_by: 'platform:write',
  },
  'models:read': {
    description: 'List and read the model registry and its statistics',
    risk: 'low',
    implied_by: 'platform:read',
  },
  'models:manage': {
    description:
      'Register and change models, submit benchmarks (the registry is the deployment’s, shared by every organization)',
    risk: 'high',
    implied_by: 'cloud:admin:global',
  },
  'agents:read': { description: 'List and read platform agents', risk: 'low', implied_by: 'platform:read' },
  'agents:invoke': {
    description: 'Call a platform agent (through /v1/agents/call or by id)',
    risk: 'standard',
    implied_by: 'platform:write',
  },
  'agents:manage': {
    description: 'Register, update and deploy platform agents',
    risk: 'high',
    implied_by: 'platform:admin',
  },
  'approvals:read': {
    description: 'List and read approval requests and the escalation queue',
    risk: 'low',
    implied_by: 'platform:read',
  },
  'approvals:request': {
    description: 'Ask for an approval (not cancel one: that is approvals:cancel)',
    risk: 'standard',
    implied_by: 'platform:write',
  },
  'approvals:respond': {
    description: 'Approve or reject an approval request or an escalation, as the person (a human act)',
    risk: 'standard',
    implied_by: 'platform:write',
  },
  'approvals:cancel': {
    description: 'Cancel a pending approval request, as the person (a human act)',
    risk: 'standard',
    implied_by: 'platform:write',
  },
  'executions:read': { description: 'List and read executions', risk: 'low', implied_by: 'platform:read' },
  'executions:cancel': { description: 'Cancel an execution', risk: 'standard', implied_by: 'platform:write' },
  'callback_secrets:read': {
    description: 'List the callback signing secrets (never their values)',
    risk: 'low',
    implied_by: 'platform:read',
  },
  'callback_secrets:manage': {
    description: 'Create or rotate a callback signing secret',
    risk: 'high',
    implied_by: 'platform:write',
  },
  'workflows:read': {
    description: 'List and read workflow DAGs, their statistics and provenance',
    risk: 'low',
    implied_by: 'platform:read',
  },
  'workflows:write': { description: 'Create a workflow DAG', risk: 'standard', implied_by: 'platform:write' },
  'tasks:read': { description: 'Read submitted tasks and their status', risk: 'low', implied_by: 'platform:read' },
  'tasks:submit': { description: 'Submit a task for routing', risk: 'standard', implied_by: 'platform:write' },
  'provenance:read': {
    description: 'Query provenance, events and attestations',
    risk: 'low',
    implied_by: 'platform:read',
  },
  'provenance:attest': { description: 'Attest a provenance record', risk: 'standard', implied_by: 'platform:write' },
  'health:read': { description: 'Read the platform status', risk: 'low', implied_by: 'platform:read' },
  'health:check': { description: 'Run an organization health check', risk: 'standard', implied_by: 'platform:write' },
  'health:organizations': {
    description: 'Read the health of every organization of the deployment (cloud mode, its operator)',
    risk: 'high',
    implied_by: 'cloud:admin:global',
  },
  'organizations:read': { description: 'Read one’s own organization', risk: 'low', implied_by: 'platform:read' },
  'organizations:create': {
    description: 'Create organizations and see every one (deployment administration)',
    risk: 'high',
    implied_by: 'cloud:admin:global',
  },
} as const satisfies Record<string, CapabilityDefinition>;
